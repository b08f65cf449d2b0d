package arango

import (
	"errors"
	"fmt"

	"github.com/arangodb/go-driver/v2/arangodb/shared"

	"github.com/relayhq/relay/graphdb"
)

// ErrAuth is wrapped by the error of a request the server refused for
// want of valid credentials (a missing or wrong password).
var ErrAuth = errors.New("authentication failed")

// ErrGraphMissing is wrapped by the error of a request whose database or
// collection does not exist (any more): the graph was never written there,
// or was dropped. errors.Is(ErrGraphMissing, graphdb.ErrNotFound) holds.
var ErrGraphMissing error = graphMissing{}

type graphMissing struct{}

func (graphMissing) Error() string        { return "the relay graph is missing or was dropped" }
func (graphMissing) Is(target error) bool { return target == graphdb.ErrNotFound }

// LayoutError is Open's error for a database holding a relay graph of
// another layout version: it must be dropped and indexed again.
type LayoutError struct {
	Target     Target // the store (its Database is the one to drop)
	Have, Want int    // the graph's layout version and this relay's
}

func (e *LayoutError) Error() string {
	return fmt.Sprintf("open %s: the graph has layout version %d, this relay understands %d", e.Target, e.Have, e.Want)
}

// isDocNotFound reports whether err says one document does not exist (as
// opposed to its collection or database).
func isDocNotFound(err error) bool {
	return shared.IsArangoErrorWithErrorNum(err, shared.ErrArangoDocumentNotFound)
}

// isWriteConflict reports whether err is a write-write conflict or a unique
// constraint race: another transaction touched the same document.
func isWriteConflict(err error) bool {
	return shared.IsArangoErrorWithErrorNum(err, shared.ErrArangoConflict, shared.ErrArangoUniqueConstraintViolated) ||
		shared.IsConflict(err)
}

// mapErr wraps a driver error with what was being done and translates the
// cases callers test for: a missing document, collection or database wraps
// graphdb.ErrNotFound (ErrGraphMissing when it is the graph that is
// missing), a conflict wraps graphdb.ErrLocked, and authentication
// failures wrap ErrAuth.
func mapErr(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case isDocNotFound(err):
		return fmt.Errorf("%s: %w", what, graphdb.ErrNotFound)
	case shared.IsArangoErrorWithErrorNum(err, shared.ErrArangoDataSourceNotFound, shared.ErrArangoDatabaseNotFound):
		return fmt.Errorf("%s: %v: %w", what, err, ErrGraphMissing)
	case shared.IsNotFound(err):
		return fmt.Errorf("%s: %v: %w", what, err, graphdb.ErrNotFound)
	case isWriteConflict(err):
		return fmt.Errorf("%s: %v (another writer changed the same documents): %w", what, err, graphdb.ErrLocked)
	case shared.IsUnauthorized(err):
		return fmt.Errorf("%s: %w: %w", what, ErrAuth, err)
	case shared.IsForbidden(err):
		return fmt.Errorf("%s: permission denied; grant the user read/write access to the database: %w", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
