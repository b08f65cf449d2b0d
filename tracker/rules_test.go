package tracker

import "testing"

func TestMatchCommand(t *testing.T) {
	t.Parallel()
	r := Rules{Commands: []string{"/relay scope", " ", "@relay-bot scope"}}
	tests := []struct {
		body string
		want string
		ok   bool
	}{
		{"/relay scope", "/relay scope", true},
		{"  \n/Relay Scope please", "/relay scope", true},
		{"/relay scope\r\nmore", "/relay scope", true},
		{"@relay-bot scope", "@relay-bot scope", true},
		{"/relay scoped", "", false},
		{"/relay scop", "", false},
		{"please /relay scope", "", false},
		{"", "", false},
		{"/relay scopeé", "", false},
	}
	for _, tt := range tests {
		got, ok := r.MatchCommand(tt.body)
		if got != tt.want || ok != tt.ok {
			t.Errorf("MatchCommand(%q) = %q, %v; want %q, %v", tt.body, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := (Rules{}).MatchCommand("/relay scope"); ok {
		t.Error("no configured command matched")
	}
}

func TestMatchLabel(t *testing.T) {
	t.Parallel()
	r := Rules{Labels: []string{"Relay-Scope", ""}}
	for label, want := range map[string]bool{"relay-scope": true, " RELAY-SCOPE ": true, "relay": false, "": false} {
		if got := r.MatchLabel(label); got != want {
			t.Errorf("MatchLabel(%q) = %v, want %v", label, got, want)
		}
	}
}

func TestAssociationAllowed(t *testing.T) {
	t.Parallel()
	def := Rules{}
	for assoc, want := range map[string]bool{"OWNER": true, "MEMBER": true, "COLLABORATOR": true, "CONTRIBUTOR": false, "NONE": false, "": false} {
		if got := def.AssociationAllowed(assoc); got != want {
			t.Errorf("default AssociationAllowed(%q) = %v, want %v", assoc, got, want)
		}
	}
	custom := Rules{Associations: []string{"contributor"}}
	if !custom.AssociationAllowed("CONTRIBUTOR") || custom.AssociationAllowed("OWNER") {
		t.Error("configured associations replace the defaults")
	}
}
