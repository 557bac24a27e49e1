//go:build !unix && !windows

package proctree

import (
	"errors"
	"os/exec"
)

var errProcessGroups = errors.New("proctree: process trees are not supported on this platform")

type treeSys struct{}

func prepare(*exec.Cmd)      {}
func attach(*Tree) error     { return nil }
func (t *Tree) release()     {}
func prepareGroup(*exec.Cmd) {}

func (t *Tree) kill() error { return killGroup(t.pid) }

func killGroup(int) error { return errProcessGroups }
