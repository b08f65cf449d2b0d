package tracker

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MatchCommand reports which configured command word starts body, ignoring
// leading white space and case. The word must end there or be followed by
// white space, so "/relay scoped" does not match "/relay scope".
func (r Rules) MatchCommand(body string) (string, bool) {
	body = strings.TrimLeftFunc(body, unicode.IsSpace)
	for _, cmd := range r.Commands {
		cmd = strings.TrimSpace(cmd)
		if cmd == "" || len(body) < len(cmd) || !strings.EqualFold(body[:len(cmd)], cmd) {
			continue
		}
		if rest := body[len(cmd):]; rest != "" {
			if next, _ := utf8.DecodeRuneInString(rest); !unicode.IsSpace(next) {
				continue
			}
		}
		return cmd, true
	}
	return "", false
}

// MatchLabel reports whether label is one of the configured trigger labels
// (case-insensitive, as GitHub and Jira compare labels).
func (r Rules) MatchLabel(label string) bool {
	label = strings.TrimSpace(label)
	for _, l := range r.Labels {
		if l = strings.TrimSpace(l); l != "" && strings.EqualFold(l, label) {
			return true
		}
	}
	return false
}

// AssociationAllowed reports whether a GitHub author association (OWNER,
// MEMBER, COLLABORATOR, CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR, NONE, …) may
// use a command word: one of Associations, or of DefaultAssociations when
// none is configured.
func (r Rules) AssociationAllowed(assoc string) bool {
	allowed := r.Associations
	if len(allowed) == 0 {
		allowed = DefaultAssociations
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSpace(a), assoc) {
			return true
		}
	}
	return false
}

// HasReportMarker reports whether a comment body carries relay's report
// marker: such a comment is the bot's own report, never a command and
// never part of the text.
func HasReportMarker(body string) bool { return strings.Contains(body, ReportMarker) }
