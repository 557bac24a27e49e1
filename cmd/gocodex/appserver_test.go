package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/appserver"
)

func TestParseListen(t *testing.T) {
	tests := []struct {
		in      string
		stdio   bool
		want    listenTarget
		wantErr string
	}{
		{in: "stdio://", want: listenTarget{kind: "stdio"}},
		{in: "", want: listenTarget{kind: "stdio"}},
		{in: "ws://127.0.0.1:4500", want: listenTarget{kind: "ws", addr: "127.0.0.1:4500"}},
		{in: "ws://[::1]:0/", want: listenTarget{kind: "ws", addr: "[::1]:0"}},
		{in: "off", want: listenTarget{kind: "off"}},
		{in: "ws://127.0.0.1:1", stdio: true, want: listenTarget{kind: "stdio"}},
		{in: "ws://localhost", wantErr: "expected ws://IP:PORT"},
		{in: "unix://", wantErr: "unsupported --listen URL"},
	}
	for _, tt := range tests {
		got, err := parseListen(tt.in, tt.stdio)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseListen(%q) error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseListen(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(listenTarget{})); diff != "" {
			t.Errorf("parseListen(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestWSToken(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tok")
	os.WriteFile(file, []byte("abc\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	sum := appserver.HashToken("abc")
	tests := []struct {
		name    string
		opts    appServerOptions
		want    []byte
		wantErr string
	}{
		{name: "none", opts: appServerOptions{}},
		{name: "file", opts: appServerOptions{WSAuth: "capability-token", WSTokenFile: file}, want: sum},
		{name: "digest", opts: appServerOptions{WSAuth: "capability-token", WSTokenSHA256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}, want: sum},
		{name: "relative file", opts: appServerOptions{WSAuth: "capability-token", WSTokenFile: "tok"}, wantErr: "absolute path"},
		{name: "empty file", opts: appServerOptions{WSAuth: "capability-token", WSTokenFile: empty}, wantErr: "is empty"},
		{name: "no source", opts: appServerOptions{WSAuth: "capability-token"}, wantErr: "needs --ws-token-file"},
		{name: "file without mode", opts: appServerOptions{WSTokenFile: file}, wantErr: "need --ws-auth"},
		{name: "bad digest", opts: appServerOptions{WSAuth: "capability-token", WSTokenSHA256: "zz"}, wantErr: "invalid --ws-token-sha256"},
		{name: "jwt", opts: appServerOptions{WSAuth: "signed-bearer-token"}, wantErr: "not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := wsToken(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !cmp.Equal(got, tt.want) {
				t.Fatalf("wsToken = %x, %v; want %x", got, err, tt.want)
			}
		})
	}
}

// The command's flags reach the runner; cobra stays out of the behaviour.
func TestAppServerFlags(t *testing.T) {
	var got appServerOptions
	cmd := newAppServerCommand(defaultStreams(), func(_ context.Context, o appServerOptions, _ streams) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--listen", "ws://127.0.0.1:0", "-c", "model=\"x\"", "--enable", "f", "--ws-auth", "capability-token", "--ws-token-sha256", "00", "--analytics-default-enabled"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	want := appServerOptions{Listen: "ws://127.0.0.1:0", Configs: []string{`model="x"`}, Enable: []string{"f"}, WSAuth: "capability-token", WSTokenSHA256: "00"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}
