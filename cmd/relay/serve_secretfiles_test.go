package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeSecretFilesConfig: the secret_files block of relay.yaml reaches
// the bot's search index and its report check, not only its tools. A file
// the operator declares secret-bearing (here config/sms-*.yml, which the default
// list does not name) holds the very words of the issue; the offline
// report must neither rank it nor quote it.
func TestServeSecretFilesConfig(t *testing.T) {
	needRgFd(t)
	dir := sampleRepo(t)
	const canary = "SMS duplicate resend provider slow notify twice outbox-canary-7f3a"
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "sms-provider.yml"), []byte("sms:\n  note: "+canary+"\n  resend: twice\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	remote := commitRepo(t, dir)
	api := newGHAPI(t, serveEnv["RELAY_TEST_GH_TOKEN"])
	api.addIssue("acme/sample#7", "Customers receive the same SMS twice", "When the SMS provider is slow, notify sends the message again: duplicate resend.")
	srv := startServeGitHub(t, remote, api, "secret_files:\n  extra: ['config/sms-*.yml']\n", serveGetenv)
	report := srv.scopeOpened(t, api, "secret-files-1", "the report")
	srv.stop(t)
	for _, leak := range []string{"sms-provider.yml", "outbox-canary-7f3a"} {
		if strings.Contains(report, leak) {
			t.Errorf("the report names or quotes the operator's secret-bearing file (%q):\n%s", leak, report)
		}
	}
}
