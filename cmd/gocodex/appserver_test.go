package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gocodex/gocodex/internal/appserver"
	"github.com/gocodex/gocodex/internal/faceopts"
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

func TestWSAuth(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tok")
	os.WriteFile(file, []byte("abc\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte(strings.Repeat("s", 32)+"\n"), 0o600)
	sum := appserver.HashToken("abc")
	tests := []struct {
		name    string
		opts    appServerOptions
		want    []byte
		wantJWT *appserver.JWTAuth
		wantErr string
	}{
		{name: "jwt", opts: appServerOptions{WSAuth: "signed-bearer-token", WSSharedSecretFile: secret, WSIssuer: "i", WSAudience: "a", WSMaxClockSkew: 5},
			wantJWT: &appserver.JWTAuth{Secret: []byte(strings.Repeat("s", 32)), Issuer: "i", Audience: "a", MaxClockSkew: 5 * time.Second}},
		{name: "jwt without secret", opts: appServerOptions{WSAuth: "signed-bearer-token"}, wantErr: "needs --ws-shared-secret-file"},
		{name: "jwt flags without mode", opts: appServerOptions{WSIssuer: "i"}, wantErr: "need --ws-auth signed-bearer-token"},
		{name: "token file in jwt mode", opts: appServerOptions{WSAuth: "signed-bearer-token", WSSharedSecretFile: secret, WSTokenFile: file}, wantErr: "need --ws-auth capability-token"},
		{name: "unknown mode", opts: appServerOptions{WSAuth: "basic"}, wantErr: "invalid --ws-auth"},
		{name: "none", opts: appServerOptions{}},
		{name: "file", opts: appServerOptions{WSAuth: "capability-token", WSTokenFile: file}, want: sum},
		{name: "digest", opts: appServerOptions{WSAuth: "capability-token", WSTokenSHA256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}, want: sum},
		{name: "missing file", opts: appServerOptions{WSAuth: "capability-token", WSTokenFile: filepath.Join(dir, "nope")}, wantErr: "read --ws-token-file"},
		{name: "short secret", opts: appServerOptions{WSAuth: "signed-bearer-token", WSSharedSecretFile: file}, wantErr: "must be at least 32 bytes"},
		{name: "empty file", opts: appServerOptions{WSAuth: "capability-token", WSTokenFile: empty}, wantErr: "is empty"},
		{name: "no source", opts: appServerOptions{WSAuth: "capability-token"}, wantErr: "needs --ws-token-file"},
		{name: "file without mode", opts: appServerOptions{WSTokenFile: file}, wantErr: "need --ws-auth capability-token"},
		{name: "bad digest", opts: appServerOptions{WSAuth: "capability-token", WSTokenSHA256: "zz"}, wantErr: "invalid --ws-token-sha256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, jwt, err := wsAuth(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !cmp.Equal(got, tt.want) {
				t.Fatalf("wsAuth token = %x, %v; want %x", got, err, tt.want)
			}
			if diff := cmp.Diff(tt.wantJWT, jwt, cmpopts.IgnoreFields(appserver.JWTAuth{}, "Now")); diff != "" {
				t.Errorf("wsAuth jwt (-want +got):\n%s", diff)
			}
		})
	}
}

// The command's flags reach the runner; cobra stays out of the behaviour.
func TestAppServerFlags(t *testing.T) {
	var got appServerOptions
	cmd := newAppServerCommand(testFactory(""), func(_ context.Context, o appServerOptions, _ *faceopts.Factory) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--listen", "ws://127.0.0.1:0", "-c", "model=\"x\"", "--enable", "f", "--ws-auth", "capability-token", "--ws-token-sha256", "00", "--analytics-default-enabled"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	want := appServerOptions{Listen: "ws://127.0.0.1:0", Flags: faceopts.Flags{Configs: []string{`model="x"`}, Enable: []string{"f"}}, WSAuth: "capability-token", WSTokenSHA256: "00"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}
