package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/version"
)

func doctorSample() []DoctorCheck {
	ok := DoctorCheck{ID: "config.load", Category: "config", group: "Configuration", DurationMs: 3}
	ok.detail("CODEX_HOME", "/home/u/.codex")
	ok.detail("model", "gpt-5.5 · openai")
	ok.set(StatusOK, "config loaded", "")
	warn := DoctorCheck{ID: "sandbox.helpers", Category: "sandbox", group: "Configuration"}
	warn.detail("sandbox policy", "danger-full-access")
	warn.set(StatusWarning, "filesystem unrestricted · network enabled", "Commands run unconfined.")
	fail := DoctorCheck{ID: "network.provider_reachability", Category: "reachability", group: "Connectivity", DurationMs: 12}
	fail.detail("route probe", "GET http://127.0.0.1:9/v1/models")
	fail.set(StatusFail, "provider base URL route returned 404 - verify the configured API prefix", "Set base_url to the provider API root, for example https://api.openai.com/v1")
	return []DoctorCheck{ok, warn, fail}
}

// TestDoctorReportGolden pins the report's JSON shape (Codex's: schemaVersion, generatedAt,
// overallStatus, codexVersion, checks by id with details as an object and remediation null
// when there is none) and the human and ASCII renderings.
func TestDoctorReportGolden(t *testing.T) {
	for name, write := range map[string]func(*bytes.Buffer){
		"report.json": func(b *bytes.Buffer) { _ = writeDoctorJSON(b, doctorSample(), time.Unix(1795811392, 0)) },
		"report.txt":  func(b *bytes.Buffer) { writeDoctorText(b, doctorSample(), doctorStyle{}, false) },
		"summary.txt": func(b *bytes.Buffer) { writeDoctorText(b, doctorSample(), doctorStyle{ascii: true}, true) },
	} {
		var buf bytes.Buffer
		write(&buf)
		// The header names the platform; the goldens hold a placeholder.
		got := bytes.ReplaceAll(buf.Bytes(), []byte(runtime.GOOS+"-"+runtime.GOARCH), []byte("OS-ARCH"))
		got = bytes.ReplaceAll(got, []byte("v"+version.Version+" "), []byte("vVERSION "))
		buf.Reset()
		buf.Write(got)
		path := filepath.Join("testdata", "doctor", name)
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), buf.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", path, diff)
		}
	}
}
