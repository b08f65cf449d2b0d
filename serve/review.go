package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/riverqueue/river"

	"github.com/relayhq/relay/review"
	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/gitlab"
	"github.com/relayhq/relay/udiff"
	"github.com/relayhq/relay/workspace"
)

// Reviewer writes the review context of a change request from a checkout
// of its head. Pipeline implements it; the worker finds it on the Scoper.
type Reviewer interface {
	Review(ctx context.Context, in ReviewInput) (string, error)
}

// ReviewInput is what a Reviewer reads.
type ReviewInput struct {
	Ref      tracker.Ref
	Root     string // a worktree at the head commit; removed after the job
	StoreDir string // the repository's graph, indexed at the head commit
	Diffs    []udiff.FileDiff
	Log      *slog.Logger
}

// maxDiffBytes bounds the diff a review job reads; the files past it are
// named as left out in the comment.
const maxDiffBytes = 4 << 20

// reviewNote says whether t is a review command in a GitLab note, whose
// author's access level is checked as a scope command's is (a GitHub
// comment's author association is checked by its parser).
func reviewNote(t tracker.Trigger) bool {
	return t.Reason == tracker.ReasonReview && t.Event == gitlab.EventNoteCreate
}

// reviewKey is the job key of a review trigger: one job per change
// request and head commit.
//
// DESIGN: a burst of pushes to a pull request queues one job per head (a
// redelivery of one push joins its job); each job fetches the mirror
// first and, when the change request's head has moved on from its own
// commit (a push on top, or a force-push), ends without posting: the job
// of the newer push posts. So only the
// newest head is reviewed, and a job is never coalesced into a running
// one that reviews an older head. A comment command names no head
// ("@" alone): it reviews the head of the moment.
func reviewKey(t tracker.Trigger) string {
	return "review:" + t.Ref.Key() + "@" + t.Head
}

// Review implements Reviewer: workspace.Review of the diffs at standard
// depth (callers two hops up), rendered within review.DefaultBudget and
// published (internal/publish) with the worktree's secret-file values, as
// issue reports are.
func (p *Pipeline) Review(ctx context.Context, in ReviewInput) (string, error) {
	if in.Log == nil {
		in.Log = p.log()
	}
	ws := p.workspace(in.Root, in.StoreDir, in.Log)
	defer ws.Close()
	if _, err := ws.SecretValues(); err != nil {
		return "", err
	}
	rv, err := ws.Review(ctx, in.Diffs, workspace.ReviewOptions{Depth: review.DepthStandard})
	if err != nil {
		return "", err
	}
	return ws.Publish(in.Log, OwnRepo(in.Ref), rv.Markdown(review.DefaultBudget))
}

// review is one attempt of a review job: fetch, head, diff against the
// merge base, worktree, index, review context, the one review comment.
func (w *Worker) review(ctx context.Context, job *river.Job[ScopeArgs], log *slog.Logger) error {
	ref := job.Args.Ref
	tr, ok := w.trackers[ref.Source].(tracker.Reviewer)
	if !ok || !tracker.CanReview(w.trackers[ref.Source]) {
		return &Permanent{fmt.Errorf("no %s tracker that keeps review comments is configured", ref.Source)}
	}
	repo, ok := w.cfg.Repository(ref)
	if !ok || !repo.Review {
		return &Permanent{fmt.Errorf("%s is not a repository configured with review: true", ref.Repo)}
	}
	rw, ok := w.scoper.(Reviewer)
	if !ok {
		return &Permanent{errors.New("this relay's pipeline writes no review context")}
	}
	if _, err := w.mirrors.Fetch(ctx, repo); err != nil {
		return err
	}
	head, err := w.mirrors.revParse(ctx, repo, tracker.ReviewHeadRef(ref.Source, ref.Number))
	if err != nil {
		return err
	}
	if want := job.Args.Head; want != "" && head != want {
		// The change request moved on from the job's head: pushed to, or
		// force-pushed (the job's commit is then in the mirror but not
		// below the head). The newer push's job posts. A head the mirror
		// has not got is an event newer than the fetched ref: try again,
		// and on the last attempt leave the comment to the next push.
		switch {
		case w.mirrors.hasCommit(ctx, repo, want):
			log.Info("review superseded by a newer push; its job posts", "head", head, "job_head", want)
			return nil
		case job.Attempt < job.MaxAttempts:
			return fmt.Errorf("%s is at %s, not yet at the pushed %s", tracker.ReviewHeadRef(ref.Source, ref.Number), head, want)
		}
		log.Warn("the pushed head never reached the mirror; the review is left to the next push", "head", head, "job_head", want)
		return nil
	}
	base := job.Args.Base
	if base == "" {
		base = repo.Branch
	}
	diffs, left, mergeBase, err := w.mirrors.reviewDiff(ctx, repo, base, head, w.worktreeDir(repo, job))
	if err != nil {
		return err
	}
	log = log.With("commit", head, "merge_base", mergeBase)
	wt, cleanup, err := w.mirrors.Worktree(ctx, repo, head, worktreeName(job.ID, job.Attempt))
	if err != nil {
		return err
	}
	defer cleanup()
	storeDir := w.mirrors.StoreDir(repo)
	_, fresh, err := w.index(ctx, wt, storeDir, head)
	if err != nil {
		return fmt.Errorf("index %s at %s: %w", repo.Key(), head, err)
	}
	md := "## Review context\n\nNo file diff to review."
	if len(diffs) > 0 {
		if md, err = rw.Review(ctx, ReviewInput{Ref: ref, Root: wt, StoreDir: storeDir, Diffs: diffs, Log: log}); err != nil {
			return fmt.Errorf("review context: %w", err)
		}
	}
	body := ReportHead(head, "", fresh) + "\n\n" + reviewBody(md, base, mergeBase, left)
	if _, err := tr.UpsertReview(ctx, ref, body); err != nil {
		return trackerErr("post the review context", err)
	}
	log.Info("review posted", "files", len(diffs), "files_left_out", len(left))
	return nil
}

// postReviewFailure says on the change request that its review job
// finally failed; the error itself goes to the log only (Work logged it).
func (w *Worker) postReviewFailure(ctx context.Context, job *river.Job[ScopeArgs], log *slog.Logger) {
	tr, ok := w.trackers[job.Args.Ref.Source].(tracker.Reviewer)
	if !ok || !tracker.CanReview(w.trackers[job.Args.Ref.Source]) {
		return
	}
	note := fmt.Sprintf("⚠️ **relay could not compute the review context**: the operator's log has the details, job id %d. "+
		"It tried %d time(s). Comment `%s` to try again.", job.ID, job.Attempt, tracker.ReviewCommand)
	if _, err := tr.UpsertReview(ctx, job.Args.Ref, note); err != nil {
		log.Error("edit the review comment with the failure", "err", err)
	}
}

// reviewBody is the review comment below its first line.
func reviewBody(md, base, mergeBase string, left []string) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(md))
	if len(left) > 0 {
		fmt.Fprintf(&b, "\n\n_The diff is over %d MiB: %d file(s) past it are left out of this context: %s._",
			maxDiffBytes>>20, len(left), strings.Join(firstN(left, 20), ", "))
	}
	fmt.Fprintf(&b, "\n\n<sub>Review context by relay: the changes since `%s`, the merge base with `%s`. "+
		"Comment `%s` to compute it again.</sub>", short(mergeBase), base, tracker.ReviewCommand)
	return b.String()
}

func firstN(xs []string, n int) []string {
	if len(xs) > n {
		return append(xs[:n:n], fmt.Sprintf("… %d more", len(xs)-n))
	}
	return xs
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// worktreeDir is a scratch directory of the job's, beside its worktree.
func (w *Worker) worktreeDir(repo Repository, job *river.Job[ScopeArgs]) string {
	return filepath.Join(w.cfg.StateDir, "worktrees", slug(repo), worktreeName(job.ID, job.Attempt)+".diff")
}

// revParse resolves ref in r's mirror to a commit.
func (m *Mirrors) revParse(ctx context.Context, r Repository, ref string) (string, error) {
	out, err := m.git(ctx, r, m.MirrorDir(r), "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%s has no %s in its mirror (is the change request still open?): %w", r.Key(), ref, err)
	}
	return out, nil
}

// hasCommit says whether commit is in r's mirror.
func (m *Mirrors) hasCommit(ctx context.Context, r Repository, commit string) bool {
	_, err := m.git(ctx, r, m.MirrorDir(r), "cat-file", "-e", commit+"^{commit}")
	return err == nil
}

// reviewDiff is the diff of head against its merge base with branch base,
// parsed, within maxDiffBytes: the files past it are returned as left.
// scratch is a directory for the diff file, removed after.
func (m *Mirrors) reviewDiff(ctx context.Context, r Repository, base, head, scratch string) (diffs []udiff.FileDiff, left []string, mergeBase string, err error) {
	baseCommit, err := m.revParse(ctx, r, "refs/heads/"+base)
	if err != nil {
		return nil, nil, "", err
	}
	mirror := m.MirrorDir(r)
	if mergeBase, err = m.git(ctx, r, mirror, "merge-base", baseCommit, head); err != nil {
		return nil, nil, "", &Permanent{fmt.Errorf("%s: no merge base of %s and %s: %w", r.Key(), base, head, err)}
	}
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return nil, nil, "", fmt.Errorf("create diff directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	file := filepath.Join(scratch, "change.diff")
	if _, err := m.git(ctx, r, mirror, "diff", "--no-color", "--no-ext-diff", "--find-renames", "--output="+file, mergeBase, head); err != nil {
		return nil, nil, "", fmt.Errorf("diff %s..%s: %w", mergeBase, head, err)
	}
	raw, err := readDiffPrefix(file, maxDiffBytes)
	if err != nil {
		return nil, nil, "", err
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		diffs, err = udiff.Parse(bytes.NewReader(raw))
	}
	if err != nil {
		return nil, nil, "", &Permanent{fmt.Errorf("parse the diff %s..%s: %w", mergeBase, head, err)}
	}
	names, err := m.git(ctx, r, mirror, "diff", "-z", "--name-only", "--no-renames", mergeBase, head)
	if err != nil {
		return nil, nil, "", fmt.Errorf("list the files of %s..%s: %w", mergeBase, head, err)
	}
	return diffs, leftOut(diffs, strings.Split(names, "\x00")), mergeBase, nil
}

// readDiffPrefix reads a diff file whole when it fits max bytes, or else
// its file diffs that fit, cut before the "diff --git" line of the first
// one that does not.
func readDiffPrefix(file string, max int) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read the diff: %w", err)
	}
	defer f.Close()
	buf := make([]byte, max+1)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read the diff: %w", err)
	}
	if n <= max {
		return buf[:n], nil
	}
	// -1 when not even the first file diff fits: nothing is read.
	cut := bytes.LastIndex(buf[:max], []byte("\ndiff --git "))
	return buf[:cut+1], nil
}

// leftOut lists the changed files (names, as git diff --name-only gives
// them) that no parsed file diff covers.
func leftOut(diffs []udiff.FileDiff, names []string) []string {
	seen := map[string]bool{}
	for _, d := range diffs {
		seen[d.OldPath], seen[d.NewPath] = true, true
	}
	var out []string
	for _, n := range names {
		if n != "" && !seen[n] {
			out = append(out, n)
		}
	}
	return out
}

// UpsertReview implements tracker.Reviewer under dry_run: the review
// comment is logged and counted as a report would be, and not posted.
func (d *dryRun) UpsertReview(ctx context.Context, ref tracker.Ref, body string) (string, error) {
	return d.UpsertReport(ctx, ref, body)
}
