package github

import (
	"context"
	"fmt"
	"strings"

	"github.com/relayhq/relay/tracker"
)

// CheckRepo makes one authenticated GET of ref's repository (GET
// /repos/{owner}/{repo}) with the credentials the bot would use for it: the
// token, or the installation token of the GitHub App installation that
// covers it. relay serve --check-config runs it, so bad credentials show
// before the first webhook does.
func (c *Client) CheckRepo(ctx context.Context, ref tracker.Ref) error {
	owner, name, ok := strings.Cut(ref.Repo, "/")
	if ref.Source != tracker.GitHub || !ok || owner == "" || name == "" {
		return fmt.Errorf("github: %s is not a GitHub repository", ref)
	}
	inst, err := c.forRepo(ctx, owner, name)
	if err != nil {
		return err
	}
	if _, _, err := inst.api.Repositories.Get(ctx, owner, name); err != nil {
		return mapError(fmt.Sprintf("read repository %s/%s", owner, name), err)
	}
	return nil
}
