//go:build !race

package patch

const raceEnabled = false
