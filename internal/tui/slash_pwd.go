package tui

// pwdCommand is /pwd: the folder the thread works in.
func (m *Model) pwdCommand(_, _ string) {
	m.info("Current working directory: " + m.header.Cwd)
}
