//go:build race

package patch

// raceEnabled skips the tests that run apply_patch as a separate process (the gocodex binary,
// or this test binary): under -race they would dominate the package's test time, and the
// in-process run covers the same behaviour.
const raceEnabled = true
