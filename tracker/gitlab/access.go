package gitlab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"
)

// AccessLevel is a GitLab role's access level (Guest 10 … Owner 50).
type AccessLevel int

// The roles a minimum command level may name, lowest first.
var accessLevels = []struct {
	name  string
	level gl.AccessLevelValue
}{
	{"guest", gl.GuestPermissions},
	{"planner", gl.PlannerPermissions},
	{"reporter", gl.ReporterPermissions},
	{"developer", gl.DeveloperPermissions},
	{"maintainer", gl.MaintainerPermissions},
	{"owner", gl.OwnerPermissions},
}

// ParseAccessLevel reads a role name (guest, planner, reporter,
// developer, maintainer, owner; any case).
func ParseAccessLevel(s string) (AccessLevel, error) {
	for _, l := range accessLevels {
		if strings.EqualFold(strings.TrimSpace(s), l.name) {
			return AccessLevel(l.level), nil
		}
	}
	names := make([]string, len(accessLevels))
	for i, l := range accessLevels {
		names[i] = l.name
	}
	return 0, fmt.Errorf("%q is not a GitLab role; give one of %s", s, strings.Join(names, ", "))
}

// String names the level's role.
func (a AccessLevel) String() string {
	for _, l := range slices.Backward(accessLevels) {
		if gl.AccessLevelValue(a) >= l.level {
			return l.name
		}
	}
	return "no access"
}

// MayCommand reports whether the user (its numeric id, as a webhook names
// it) is an active member of project with at least min, directly or
// through a group (GET /projects/:id/members/all/:user_id). A user who is
// no member (404), or a blocked or awaiting one, may not.
func (c *Client) MayCommand(ctx context.Context, project, userID string, min AccessLevel) (bool, error) {
	id, err := strconv.ParseInt(userID, 10, 64)
	if err != nil || id <= 0 {
		return false, nil
	}
	m, _, err := c.api.ProjectMembers.GetInheritedProjectMember(project, id, gl.WithContext(ctx))
	switch {
	case errors.Is(err, gl.ErrNotFound):
		return false, nil
	case err != nil:
		return false, mapError(fmt.Sprintf("read the membership of user %d in %s", id, project), err)
	}
	// A blocked member, or one awaiting approval, holds the role in name only.
	return (m.State == "" || m.State == "active") && m.AccessLevel >= gl.AccessLevelValue(min), nil
}

// CheckProject proves the credentials on project with the calls the bot
// makes: the token's user (GET /user), the project (GET
// /projects/:path) and the user's membership in it, which must be at
// least Reporter to read the code and post notes on a private project.
// When BotUsername is set it must be the token's user, or the report
// note would never be found again. relay serve --check-config runs it.
func (c *Client) CheckProject(ctx context.Context, project string) error {
	me, _, err := c.api.Users.CurrentUser(gl.WithContext(ctx))
	if err != nil {
		return mapError("read the token's user", err)
	}
	if b := c.opts.BotUsername; b != "" && !strings.EqualFold(b, me.Username) {
		return fmt.Errorf("gitlab: the token belongs to %s, not to the configured bot_username %s; set bot_username to %s, or the bot would not find its own report notes", me.Username, b, me.Username)
	}
	p, _, err := c.api.Projects.GetProject(project, nil, gl.WithContext(ctx))
	if err != nil {
		return mapError("read project "+project, err)
	}
	if me.IsAdmin {
		return nil
	}
	m, _, err := c.api.ProjectMembers.GetInheritedProjectMember(p.ID, me.ID, gl.WithContext(ctx))
	if errors.Is(err, gl.ErrNotFound) {
		return fmt.Errorf("gitlab: %s is not a member of %s; add it with the Reporter role or higher (a project access token's user is a member of its project)", me.Username, project)
	}
	if err != nil {
		return mapError(fmt.Sprintf("read the membership of %s in %s", me.Username, project), err)
	}
	if m.AccessLevel < gl.ReporterPermissions {
		return fmt.Errorf("gitlab: %s has the %s role on %s; it needs Reporter or higher to read the code and post the report", me.Username, AccessLevel(m.AccessLevel), project)
	}
	return nil
}
