package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/egress"
)

// TestSecretValuesReadOnce: the checkout's secret-file values are read
// once, given to the egress filter and handed to internal/publish; the
// report is published with the values read then, not by walking the
// checkout a second time (the bot walked it twice per job: once for the
// filter, once to publish). With the checkout gone by the time the report
// is published, publishing neither walks it (which fails on a missing
// root) nor lets the value through.
func TestSecretValuesReadOnce(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const value = "Wq73canaryPx19secretValue"
	env := filepath.Join(root, ".env")
	if err := os.WriteFile(env, []byte("DEPLOY_TOKEN="+value+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := egress.New(egress.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o, _ := testOptions(t, root)
	o.Filter = f
	w := New(o)
	vals, err := w.SecretValues()
	if err != nil || len(vals) == 0 {
		t.Fatalf("SecretValues = %q, %v; want the values of .env", vals, err)
	}
	if got := f.String("the token " + value); strings.Contains(got, value) {
		t.Errorf("the egress filter did not learn the value: %q", got)
	}
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	md, err := w.Publish(w.Log(), "", "Deploy with "+value+" as the token.")
	if err != nil {
		t.Fatalf("Publish walked the checkout again: %v", err)
	}
	if strings.Contains(md, value) || !strings.Contains(md, "[redacted: "+egress.ValueRule+"]") {
		t.Errorf("published %q; want the value read before redacted as a secret-file value", md)
	}
}
