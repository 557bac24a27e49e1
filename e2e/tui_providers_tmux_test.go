package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// /model lists the configured providers when more than one is usable; picking the other
// continues the conversation there: the next request goes to that provider's server and
// carries the earlier turn.
func TestTUITmuxModelPickerSwitchesProvider(t *testing.T) {
	e := newEnv(t)
	second := tk.NewServer(t)
	path := filepath.Join(e.CodexHome, "config.toml")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[model_providers.second]\nname = \"Second Mock\"\nbase_url = %q\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n", second.URL()+"/v1")
	f.Close()
	e.Model.Enqueue(answer("FROM-FIRST"))
	second.Enqueue(answer("FROM-SECOND"))

	u := e.startTmuxUI()
	u.waitFor("Ask gocodex to do anything")
	u.typeLine("remember KIWI")
	u.waitFor("FROM-FIRST")
	waitIdle(u)
	u.typeLine("/model")
	u.waitFor("Provider: Mock (current)")
	// The rows after the current model: this provider, then the other.
	u.pane.sendKeys(false, "Down", "Down")
	u.waitFor("› 11. Provider: Second Mock")
	u.pane.sendKeys(false, "Enter")
	u.waitFor("Model provider changed to second")
	u.typeLine("what did I say?")
	u.waitFor("FROM-SECOND")
	waitIdle(u)
	u.quit()

	if n := len(e.Model.Requests()); n != 1 {
		t.Errorf("%d requests to the first provider, want 1", n)
	}
	reqs := second.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests to the second provider, want 1", len(reqs))
	}
	if texts := reqs[0].MessageTexts("user"); !slices.ContainsFunc(texts, hasText("remember KIWI")) {
		t.Errorf("the conversation did not carry over: %q", texts)
	}
}
