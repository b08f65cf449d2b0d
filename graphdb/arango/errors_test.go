package arango

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/arangodb/go-driver/v2/arangodb/shared"

	"github.com/relayhq/relay/graphdb"
)

func arangoErr(code, num int, msg string) error {
	return shared.ArangoError{HasError: true, Code: code, ErrorNum: num, ErrorMessage: msg}
}

func TestMapErr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		err      error
		is       error  // want errors.Is(got, is); nil: neither ErrNotFound nor ErrLocked
		contains string // want this in the message
	}{
		{"document not found", arangoErr(404, shared.ErrArangoDocumentNotFound, "document not found"), graphdb.ErrNotFound, "node x"},
		{"wrapped document not found", fmt.Errorf("read: %w", arangoErr(404, shared.ErrArangoDocumentNotFound, "document not found")), graphdb.ErrNotFound, "node x"},
		{"collection missing", arangoErr(404, shared.ErrArangoDataSourceNotFound, "collection or view not found: nodes"), ErrGraphMissing, "missing or was dropped"},
		{"database missing", arangoErr(404, shared.ErrArangoDatabaseNotFound, "database not found"), ErrGraphMissing, "missing or was dropped"},
		{"plain 404", arangoErr(404, 0, ""), graphdb.ErrNotFound, "node x"},
		{"write-write conflict", arangoErr(409, shared.ErrArangoConflict, "write-write conflict"), graphdb.ErrLocked, "another writer"},
		{"unique constraint", arangoErr(409, shared.ErrArangoUniqueConstraintViolated, "unique constraint violated"), graphdb.ErrLocked, "another writer"},
		{"unauthorized", arangoErr(401, 11, "not authorized"), nil, "authentication failed"},
		{"forbidden", arangoErr(403, 11, "forbidden"), nil, "grant the user"},
		{"other server error", arangoErr(500, 4, "internal"), nil, "node x: internal"},
		{"network error", errors.New("dial tcp 127.0.0.1:8529: connect: connection refused"), nil, "connection refused"},
		{"cancelled", context.Canceled, context.Canceled, "node x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := mapErr("node x", tc.err)
			if got == nil {
				t.Fatal("mapErr returned nil")
			}
			if tc.is != nil && !errors.Is(got, tc.is) {
				t.Errorf("mapErr(%v) = %v, want it to wrap %v", tc.err, got, tc.is)
			}
			if tc.is == nil && (errors.Is(got, graphdb.ErrNotFound) || errors.Is(got, graphdb.ErrLocked)) {
				t.Errorf("mapErr(%v) = %v wraps a sentinel it should not", tc.err, got)
			}
			if !strings.Contains(got.Error(), tc.contains) {
				t.Errorf("mapErr(%v) = %q, want it to contain %q", tc.err, got, tc.contains)
			}
			// Where no sentinel replaces it, the driver error stays in the chain.
			if tc.is == nil && !errors.Is(got, tc.err) {
				t.Errorf("mapErr(%v) = %v lost the driver error", tc.err, got)
			}
		})
	}
	if err := mapErr("x", arangoErr(401, 11, "not authorized")); !errors.Is(err, ErrAuth) {
		t.Errorf("mapErr(401) = %v, want it to wrap ErrAuth", err)
	}
	if !errors.Is(mapErr("x", arangoErr(404, shared.ErrArangoDatabaseNotFound, "")), graphdb.ErrNotFound) {
		t.Error("ErrGraphMissing does not count as graphdb.ErrNotFound")
	}
	if mapErr("x", nil) != nil {
		t.Error("mapErr(nil) != nil")
	}
	if !isDocNotFound(arangoErr(404, shared.ErrArangoDocumentNotFound, "")) || isDocNotFound(arangoErr(404, shared.ErrArangoDataSourceNotFound, "")) {
		t.Error("isDocNotFound does not tell a missing document from a missing collection")
	}
}

func TestLeaseHeld(t *testing.T) {
	t.Parallel()
	tg := Target{Endpoint: "http://h:8529", Database: "db", User: "root"}
	if err := leaseHeld(tg, "me", lockDoc{Holder: "me", Expires: 1}); err != nil {
		t.Errorf("own lease: %v", err)
	}
	err := leaseHeld(tg, "me", lockDoc{Holder: "ci-host:42:ab12", Expires: 1_700_000_000_000})
	if !errors.Is(err, graphdb.ErrLocked) {
		t.Fatalf("lease of another holder: %v, want ErrLocked", err)
	}
	for _, want := range []string{"ci-host:42:ab12", "2023-11-14T22:13:20Z", "arangodb://root@h:8529/db"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("lease error %q does not name %q", err, want)
		}
	}
}
