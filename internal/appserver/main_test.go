package appserver_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain is the package's only one (core and method tests share it): no goroutine of a
// connection outlives its test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
