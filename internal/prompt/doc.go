// Package prompt builds the texts the model sees besides the conversation itself: the base
// instructions, the permissions section, the user instructions gathered from AGENTS.md files
// and the <environment_context> block, laid out in the messages Codex sends at the start of a
// thread. Every text here is our own and is embedded in the binary; only the wire tags
// (`<permissions instructions>`, `<environment_context>`, `# AGENTS.md instructions for …`,
// `--- project-doc ---`) match Codex, because models are trained on them.
//
// The package reads files (AGENTS.md, a model_instructions_file) through the FS interface so
// tests and remote file systems can stand in; it keeps no state.
package prompt
