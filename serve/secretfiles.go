package serve

import (
	"github.com/relayhq/relay/internal/egress"
)

// SecretFiles is the secret_files block of relay.yaml: patterns in
// .gitignore syntax added to relay's list of secret-bearing files
// (egress.DefaultSecretFiles) and exempted from it. Secret-bearing files are
// not indexed, and the tools refuse them.
//
//	secret_files:
//	  extra: ["config/*.secret", "deploy/**/*.json"]
//	  allow: ["deploy/test-fixtures/*.pem"]
type SecretFiles struct {
	Extra []string `yaml:"extra"`
	Allow []string `yaml:"allow"`
}

// Policy returns the file policy of the block, with the patterns of the
// command line (--secret-files, --allow-secret-files) added.
func (s SecretFiles) Policy(extra, allow []string) (*egress.FilePolicy, error) {
	return egress.NewFilePolicy(nil, append(append([]string(nil), s.Extra...), extra...), append(append([]string(nil), s.Allow...), allow...))
}

func (s SecretFiles) validate(v *validator) {
	if _, err := s.Policy(nil, nil); err != nil {
		v.bad("secret_files: %v", err)
	}
}
