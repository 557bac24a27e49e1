package prompt

import (
	"io/fs"
	"os"
)

// FS is the part of a file system the prompt builders read. Paths are absolute.
type FS interface {
	ReadFile(name string) ([]byte, error)
	Stat(name string) (fs.FileInfo, error)
}

// OSFS reads the operating system's file system.
type OSFS struct{}

// ReadFile reads a whole file.
func (OSFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// Stat follows symlinks, as AGENTS.md discovery allows them.
func (OSFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }
