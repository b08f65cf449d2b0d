package serve

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestServeRepoTriggerSwitches: each repository's triggers switch the
// opened, label and command triggers for it alone, either way for
// opened. A new issue with a trigger label is scoped as opened where
// labels are off but opened is on, and where its creator fails the
// permission check but the repository scopes every opened issue.
func TestServeRepoTriggerSwitches(t *testing.T) {
	needGit(t)
	on, off := true, false
	api := glAPI(t, map[string][]int64{"acme/a": {1, 2, 3, 4}, "acme/b": {1, 2, 3, 4, 5}, "acme/c": {1}})
	remote, _ := gitRepo(t, nil)
	cfg := glConfig(t, api.URL(),
		Repository{GitLab: "acme/a", Remote: remote},
		Repository{GitLab: "acme/b", Remote: remote, Triggers: RepoTriggers{Opened: &on, Labels: &off}},
		Repository{GitLab: "acme/c", Remote: remote, Triggers: RepoTriggers{Opened: &on, Commands: &off}},
	)
	cfg.Triggers.Opened = &off
	trackers, parsers, err := BuildTrackers(cfg, glEnv)
	if err != nil {
		t.Fatal(err)
	}
	svc := startService(t, cfg, serviceDeps{trackers: trackers, parsers: parsers, permissions: Permissions(cfg, trackers),
		scoper: &fakeScoper{running: map[string]int{}}})
	withLabel := func(d glDelivery, user int) glDelivery {
		glObj(d.Payload, "object_attributes")["labels"] = []any{map[string]any{"title": "relay-scope"}}
		glObj(d.Payload, "user")["id"] = user
		return d
	}
	n := 0
	id := func() string { n++; return fmt.Sprintf("d-%d", n) }
	tests := []struct {
		name   string
		d      glDelivery
		result string
		reason string // the job's reason
	}{
		{"opened, off by default", glOpened(t, id(), "acme/a", 1), ResultIgnored, ""},
		{"opened, on for b", glOpened(t, id(), "acme/b", 1), ResultAccepted, "opened"},
		{"label added, off for b", glLabeled(t, id(), "acme/b", 2, "relay-scope"), ResultIgnored, ""},
		{"label added, on for a", glLabeled(t, id(), "acme/a", 2, "relay-scope"), ResultAccepted, "labeled"},
		{"created with a label, labels off, opened on", withLabel(glOpened(t, id(), "acme/b", 3), 42), ResultAccepted, "opened"},
		{"created with a label by an outsider, opened off", withLabel(glOpened(t, id(), "acme/a", 3), 44), ResultForbidden, ""},
		{"created with a label by an outsider, opened on", withLabel(glOpened(t, id(), "acme/c", 1), 44), ResultAccepted, "opened"},
		{"command on a", glNote(t, id(), "acme/a", 4, "/relay scope", 42), ResultAccepted, "command"},
		{"command on b", glNote(t, id(), "acme/b", 4, "/relay scope", 42), ResultAccepted, "command"},
		{"command, off for c", glNote(t, id(), "acme/c", 1, "/relay scope", 42), ResultIgnored, ""},
	}
	for _, tc := range tests {
		code, body := tc.d.post(t, svc.url)
		if !strings.Contains(body, `"result":"`+tc.result+`"`) {
			t.Errorf("%s: %d %s, want %s", tc.name, code, body, tc.result)
			continue
		}
		if tc.reason == "" {
			continue
		}
		var jobID int64
		fmt.Sscanf(body[strings.Index(body, "job ")+4:], "%d", &jobID)
		reason := ""
		waitFor(t, time.Minute, tc.name+": its job", func() bool {
			jobs, err := svc.Queue().Jobs(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range jobs {
				if j.ID == jobID {
					reason = string(j.EncodedArgs)
					return true
				}
			}
			return false
		})
		if !strings.Contains(reason, `"reason":"`+tc.reason+`"`) {
			t.Errorf("%s: job args %s, want reason %s", tc.name, reason, tc.reason)
		}
	}
}

// TestServeConfigRepoTriggers: a repository's triggers are read from
// relay.yaml; an unknown switch is an error naming it.
func TestServeConfigRepoTriggers(t *testing.T) {
	yaml := "state_dir: /tmp/relay\ntriggers:\n  opened: false\ngithub:\n  webhook_secret_env: S\n  token_env: T\n  bot_login: bot\nrepositories:\n" +
		"  - github: acme/a\n    remote: /tmp/a\n    triggers:\n      opened: true\n      commands: false\n  - github: acme/b\n    remote: /tmp/b\n"
	c, err := LoadConfig("relay.yaml", strings.NewReader(yaml))
	if err != nil {
		t.Fatal(err)
	}
	a, b := c.Repositories[0], c.Repositories[1]
	got := []bool{c.Allows(a, "opened"), c.Allows(a, "labeled"), c.Allows(a, "command"), c.Allows(b, "opened"), c.Allows(b, "command"), c.Rules("bot").OnOpened}
	want := []bool{true, true, false, false, true, true}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("opened, labeled, command of a; opened, command of b; parsers' OnOpened = %v, want %v", got, want)
	}
	_, err = LoadConfig("relay.yaml", strings.NewReader(strings.Replace(yaml, "commands: false", "comands: false", 1)))
	if err == nil || !strings.Contains(err.Error(), `unknown key "comands"`) {
		t.Errorf("a misspelt switch: %v", err)
	}
}
