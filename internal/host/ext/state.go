package ext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/gocodex/gocodex/internal/filelock"
	"github.com/gocodex/gocodex/internal/jsonrpc"

	"github.com/gocodex/gocodex/internal/atomicfile"
)

// StateFileName is where gocodex keeps what Codex 0.169 keeps about threads in its SQLite
// state database (state_5.sqlite, goals_1.sqlite) rather than in rollouts: sections and
// which thread sits in which, attachments, goals and edited git metadata. One JSON
// document in CODEX_HOME, rewritten whole through a temporary file and a rename, so a
// reader never sees half of it.
const StateFileName = "gocodex_thread_state.json"

// StateFile is the thread state document. Each extension owns a part of it: the fields of
// its own Go struct, which sit side by side at the top of the document ({"version":1,
// then each part's fields in the order the parts were added}). mu orders this process's
// changes; every change reads the file again first, under a file lock, so another
// process's earlier change is kept.
type StateFile struct {
	path string

	mu     sync.Mutex
	parts  []*partKind
	sealed bool
}

// partKind makes a part's empty value and fills it for a missing file.
type partKind struct {
	zero    func() any
	initial func(any)
}

// Part is an extension's share of the state file.
type Part[T any] struct {
	f     *StateFile
	index int
}

// NewStateFile is the state file at path, with no parts yet.
func NewStateFile(path string) *StateFile { return &StateFile{path: path} }

// Path is the file's path.
func (f *StateFile) Path() string { return f.path }

func (f *StateFile) seal() {
	f.mu.Lock()
	f.sealed = true
	f.mu.Unlock()
}

// AddPart gives an extension its part of the file: the fields of T (which must marshal to
// a JSON object whose names no other part uses). initial, when set, fills it when the file
// does not exist yet. Only while the host starts (Extension.Init).
func AddPart[T any](f *StateFile, initial func(*T)) *Part[T] {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sealed {
		panic("ext: state part added after the host started")
	}
	f.parts = append(f.parts, &partKind{zero: func() any { return new(T) }, initial: func(v any) {
		if initial != nil {
			initial(v.(*T))
		}
	}})
	return &Part[T]{f: f, index: len(f.parts) - 1}
}

// read is the file's content, nil when it does not exist.
func (f *StateFile) read() ([]byte, error) {
	b, err := os.ReadFile(f.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, internalError("read thread state: " + err.Error())
	}
	return b, nil
}

// decode is one part of the content b (nil: the file's initial state).
func (f *StateFile) decode(i int, b []byte) (any, error) {
	v := f.parts[i].zero()
	if b == nil {
		f.parts[i].initial(v)
		return v, nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, internalError(fmt.Sprintf("thread state %s is damaged: %v", f.path, err))
	}
	return v, nil
}

// Read calls fn with the part as the file holds it now.
func (p *Part[T]) Read(fn func(*T)) error {
	p.f.mu.Lock()
	defer p.f.mu.Unlock()
	b, err := p.f.read()
	if err != nil {
		return err
	}
	v, err := p.f.decode(p.index, b)
	if err != nil {
		return err
	}
	fn(v.(*T))
	return nil
}

// Update lets fn change the part and writes the file back unless fn fails (its error is
// returned as is).
func (p *Part[T]) Update(fn func(*T) error) error {
	f := p.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return internalError("thread state: " + err.Error())
	}
	unlock, err := filelock.Exclusive(f.path + ".lock")
	if err != nil {
		return internalError("lock thread state: " + err.Error())
	}
	defer unlock()
	b, err := f.read()
	if err != nil {
		return err
	}
	values := make([]any, len(f.parts))
	for i := range f.parts {
		if values[i], err = f.decode(i, b); err != nil {
			return err
		}
	}
	if err := fn(values[p.index].(*T)); err != nil {
		return err
	}
	out, err := encodeParts(values)
	if err != nil {
		return internalError(err.Error())
	}
	if err := WriteFileAtomic(f.path, out); err != nil {
		return internalError("write thread state: " + err.Error())
	}
	return nil
}

// encodeParts is the document: the version, then every part's fields, indented by one
// space and ended by a newline.
func encodeParts(values []any) ([]byte, error) {
	var doc bytes.Buffer
	doc.WriteString(`{"version":1`)
	for _, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b = bytes.TrimSpace(b)
		if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
			return nil, fmt.Errorf("thread state part %T is not a JSON object", v)
		}
		if fields := b[1 : len(b)-1]; len(fields) > 0 {
			doc.WriteByte(',')
			doc.Write(fields)
		}
	}
	doc.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, doc.Bytes(), "", " "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// WriteFileAtomic writes data to a temporary file next to path and renames it over path.
func WriteFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

func internalError(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
}

// Stateful is embedded by an extension that keeps a part of the state file: Keep, in Init,
// adds the part and remembers the host.
type Stateful[T any] struct {
	Host Host
	Part *Part[T]
}

// Keep adds the extension's part (initial fills it for a missing file).
func (s *Stateful[T]) Keep(h Host, initial func(*T)) {
	s.Host, s.Part = h, AddPart(h.State(), initial)
}

// UpdateOrWarn is Part.Update for a change nobody waits on (a hook's): a failure is logged
// with what did not happen to which thread.
func (s *Stateful[T]) UpdateOrWarn(what, threadID string, fn func(*T) error) {
	if err := s.Part.Update(fn); err != nil {
		s.Host.Logger().Warn(what, "thread", threadID, "err", err)
	}
}
