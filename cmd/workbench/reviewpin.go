package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
)

// approvedPrefix marks a --compare pin that is a workspace's newest approved revision rather
// than a file (a file of that name is reached as ./approved:…).
const approvedPrefix = "approved:"

// pinSource says where fetch --compare reads an approved pin: --db for a workspace id,
// --token-env for a workspace URL.
type pinSource struct {
	db, tokenEnv string
}

// loadApprovedPin reads the listing of the newest revision someone approved in the workspace
// spec names (a URL or an id), and a name for the change report.
func loadApprovedPin(ctx context.Context, e *env, spec string, src pinSource) (*listing.Listing, string, error) {
	t, err := parseReviewTarget(spec)
	if err != nil {
		return nil, "", err
	}
	if t.base != "" {
		return remoteApprovedPin(ctx, e, t, src.tokenEnv)
	}
	st, err := openStore(ctx, src.db, e.getenv, e.log)
	if err != nil {
		return nil, "", err
	}
	defer st.Close()
	// The pin needs the approved revision only: the gate's error count is not asked for.
	svc := review.New(st, review.Options{Errors: func(context.Context, string, *listing.Listing) (int, error) { return 0, nil }})
	s, err := svc.Status(ctx, t.id, 1)
	if err != nil {
		return nil, "", storeMessage(err, t.id)
	}
	if s.Approved < 0 {
		return nil, "", noApproval(t.id)
	}
	rev, err := st.Revision(ctx, t.id, s.Approved)
	if err != nil {
		return nil, "", fmt.Errorf("read approved revision %d: %w", s.Approved, err)
	}
	if err := checkApproved(t.id, s, review.Hash(rev.Listing)); err != nil {
		return nil, "", err
	}
	return rev.Listing, approvedName(t.id, s.Approved), nil
}

// checkApproved refuses a pin whose listing is not the one approved: its hash must be the
// approval's (Status.ApprovedHash; from a server that does not answer it, the hash of an
// approval of that revision), so that a release is never compared with a listing nobody
// approved.
func checkApproved(id string, s review.Status, got string) error {
	want := []string{s.ApprovedHash}
	if s.ApprovedHash == "" {
		want = want[:0]
		for _, a := range s.Signoffs {
			if a.Verdict == store.Approved && a.Revision == s.Approved {
				want = append(want, a.Hash)
			}
		}
	}
	if slices.Contains(want, got) {
		return nil
	}
	named := "no hash"
	if len(want) > 0 {
		named = line(strings.Join(want, " or "), 300) // the server's text
	}
	return fmt.Errorf("the listing of approved revision %d of workspace %s is not the one approved (it hashes %s; the approval named %s); approve the head again, or compare with a file: --compare FILE",
		s.Approved, id, got, named)
}

func remoteApprovedPin(ctx context.Context, e *env, t reviewTarget, tokenEnv string) (*listing.Listing, string, error) {
	ans, err := remoteReview(ctx, t, 1, "none", tokenEnv, e.getenv)
	if err != nil {
		return nil, "", err
	}
	n := ans.Status.Approved
	if n < 0 {
		return nil, "", noApproval(t.id)
	}
	data, err := apiGet(ctx, t.base+"/api/v1/workspaces/"+t.id+"/listing?revision="+strconv.Itoa(n), tokenEnv, e.getenv)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(data) // the API answers the listing as review.Hash hashes it
	if err := checkApproved(t.id, ans.Status, "sha256:"+hex.EncodeToString(sum[:])); err != nil {
		return nil, "", err
	}
	name := approvedName(t.id, n)
	l, err := listing.Parse(data, listing.Options{Name: name})
	if err != nil {
		return nil, "", fmt.Errorf("the approved listing the server answered cannot be read: %w", describe(err))
	}
	return l, name, nil
}

func noApproval(id string) error {
	return fmt.Errorf("nobody has approved a revision of workspace %s yet; sign off on its page (or compare with a file: --compare FILE)", id)
}

func approvedName(id string, n int) string {
	return fmt.Sprintf("approved revision %d of workspace %s", n, id)
}

// isApprovedPin tells a --compare value that names an approved revision.
func isApprovedPin(s string) bool { return strings.HasPrefix(s, approvedPrefix) }
