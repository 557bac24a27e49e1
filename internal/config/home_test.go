package config

import "testing"

func TestHomeVar(t *testing.T) {
	if homeVar("windows") != "USERPROFILE" || homeVar("darwin") != "HOME" || homeVar("linux") != "HOME" {
		t.Error("wrong home variable")
	}
}
