package arango

import (
	"fmt"

	"github.com/arangodb/go-driver/v2/arangodb/shared"

	"github.com/relayhq/relay/graphdb"
)

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
// graphdb.ErrNotFound (with advice when it is the graph that is missing), a
// conflict wraps graphdb.ErrLocked, and authentication failures say how to
// pass a password.
func mapErr(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case isDocNotFound(err):
		return fmt.Errorf("%s: %w", what, graphdb.ErrNotFound)
	case shared.IsArangoErrorWithErrorNum(err, shared.ErrArangoDataSourceNotFound, shared.ErrArangoDatabaseNotFound):
		return fmt.Errorf("%s: %v; the relay graph is missing or was dropped, run `relay index --store URL`: %w", what, err, graphdb.ErrNotFound)
	case shared.IsNotFound(err):
		return fmt.Errorf("%s: %v: %w", what, err, graphdb.ErrNotFound)
	case isWriteConflict(err):
		return fmt.Errorf("%s: %v (another writer changed the same documents): %w", what, err, graphdb.ErrLocked)
	case shared.IsUnauthorized(err):
		return fmt.Errorf("%s: authentication failed; put the password in the URL or set RELAY_ARANGO_PASSWORD: %w", what, err)
	case shared.IsForbidden(err):
		return fmt.Errorf("%s: permission denied; grant the user read/write access to the database: %w", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
