package process

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestResize(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	got := make(chan struct{}, 16)
	spec := Spec{
		Argv: sh("stty size; read line; stty size"),
		TTY:  true,
		Rows: 30, Cols: 100,
		OnOutput: func(_ Stream, b []byte) {
			mu.Lock()
			out.Write(b)
			mu.Unlock()
			select {
			case got <- struct{}{}:
			default:
			}
		},
	}
	p, err := Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Kill(); <-p.Done() }()
	waitFor := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			mu.Lock()
			s := out.String()
			mu.Unlock()
			if strings.Contains(s, want) {
				return
			}
			select {
			case <-got:
			case <-deadline:
				t.Fatalf("never saw %q in %q", want, s)
			}
		}
	}
	waitFor("30 100\r\n")
	if err := p.Resize(50, 132); err != nil {
		t.Fatal(err)
	}
	if err := p.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	waitFor("50 132\r\n")
	<-p.Done()
	if err := p.Resize(10, 10); err == nil {
		t.Error("Resize after the process is done succeeded")
	}
}

func TestResizeWithoutTerminal(t *testing.T) {
	p, err := Start(context.Background(), Spec{Argv: sh("true")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { p.Kill(); <-p.Done() }()
	if err := p.Resize(10, 10); !errors.Is(err, ErrNotTTY) {
		t.Errorf("Resize = %v, want ErrNotTTY", err)
	}
}
