package arango

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arangodb/go-driver/v2/arangodb"
	"github.com/arangodb/go-driver/v2/arangodb/shared"
	"github.com/arangodb/go-driver/v2/connection"

	"github.com/relayhq/relay/graphdb"
)

// Defaults of Options.
const (
	DefaultLockTTL   = time.Minute
	DefaultBatchSize = 1000
	minLockTTL       = 3 * time.Second
	maxBatchSize     = 100_000
)

// Options configure Open. The zero value is usable.
type Options struct {
	// Password is used when the URL carries none. Only cmd reads the
	// environment; it passes RELAY_ARANGO_PASSWORD here.
	Password string
	// InsecureSkipVerify accepts any TLS certificate (arangodbs:// with a
	// self-signed certificate).
	InsecureSkipVerify bool
	// ReadOnly opens an existing graph: nothing is created, a database
	// without a relay graph is an error wrapping graphdb.ErrNotFound, and
	// Begin fails.
	ReadOnly bool
	// LockTTL is the lifetime of the writer lease; an open Tx renews it every
	// LockTTL/3, so a crashed writer blocks others for at most LockTTL.
	// 0 means DefaultLockTTL; otherwise at least 3s.
	LockTTL time.Duration
	// BatchSize is the number of documents per insert request (0:
	// DefaultBatchSize, at most 100000).
	BatchSize int
	// MaxTransactionSize caps a write transaction in bytes (0: the server's
	// --transaction.streaming-max-transaction-size, 128 MiB by default).
	MaxTransactionSize uint64
	// Holder names this writer in the lease document; empty means
	// "<hostname>:<pid>:<random>".
	Holder string
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// Now is the clock used for leases; nil means time.Now.
	Now func() time.Time
}

// validate reports the first invalid option, naming what to do about it.
func (o Options) validate() error {
	switch {
	case o.LockTTL < 0:
		return fmt.Errorf("arango options: LockTTL %s is negative; use 0 for the default %s", o.LockTTL, DefaultLockTTL)
	case o.LockTTL > 0 && o.LockTTL < minLockTTL:
		return fmt.Errorf("arango options: LockTTL %s is shorter than %s; a lease that short expires between renewals", o.LockTTL, minLockTTL)
	case o.BatchSize < 0:
		return fmt.Errorf("arango options: BatchSize %d is negative; use 0 for the default %d", o.BatchSize, DefaultBatchSize)
	case o.BatchSize > maxBatchSize:
		return fmt.Errorf("arango options: BatchSize %d exceeds %d documents per request", o.BatchSize, maxBatchSize)
	}
	return nil
}

// withDefaults fills unset options.
func (o Options) withDefaults() Options {
	if o.LockTTL == 0 {
		o.LockTTL = DefaultLockTTL
	}
	if o.BatchSize == 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Holder == "" {
		host, _ := os.Hostname()
		var b [4]byte
		_, _ = rand.Read(b[:])
		o.Holder = fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	}
	return o
}

// Store is the ArangoDB graph store. It is safe for concurrent use; one Tx
// at a time per Store, one writer at a time per database (the lease).
type Store struct {
	target    Target
	opts      Options
	log       *slog.Logger
	transport *http.Transport

	db    arangodb.Database
	nodes arangodb.Collection
	meta  arangodb.Collection

	txMu   sync.Mutex
	txOpen *tx

	closed atomic.Bool
}

var (
	_ graphdb.Store     = (*Store)(nil)
	_ graphdb.Traverser = (*Store)(nil)
)

// Open connects to the server named by rawURL (see ParseURL) and returns the
// store in its database, creating the database, collections, indexes and
// named graph when missing (unless opts.ReadOnly).
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	t, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if !t.HasPassword {
		t.Password = opts.Password
	}
	conf := connection.DefaultHTTPConfigurationWrapper(connection.NewRoundRobinEndpoints([]string{t.Endpoint}), opts.InsecureSkipVerify)
	conf.Authentication = connection.NewBasicAuth(t.User, t.Password)
	s := &Store{target: t, opts: opts, log: opts.Logger}
	s.transport, _ = conf.Transport.(*http.Transport)
	client := arangodb.NewClient(connection.NewHttpConnection(conf))

	if _, err := client.Version(ctx); err != nil {
		s.closeIdle()
		return nil, s.connectErr(err)
	}
	if err := s.openDatabase(ctx, client); err != nil {
		s.closeIdle()
		return nil, err
	}
	if err := s.openSchema(ctx); err != nil {
		s.closeIdle()
		return nil, err
	}
	s.log.Debug("arango store open", "target", t.String(), "read_only", opts.ReadOnly)
	return s, nil
}

// connectErr explains a failed first request.
func (s *Store) connectErr(err error) error {
	switch {
	case shared.IsUnauthorized(err):
		return fmt.Errorf("open %s: %w for user %q: %w", s.target, ErrAuth, s.target.User, err)
	case shared.IsForbidden(err):
		return fmt.Errorf("open %s: user %q may not access the server: %w", s.target, s.target.User, err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("open %s: %w", s.target, err)
	}
	return fmt.Errorf("open %s: cannot reach ArangoDB at %s (is it running? examples/arangodb/docker-compose.yml starts one): %w", s.target, s.target.Endpoint, err)
}

// openDatabase gets (or creates) the target database.
func (s *Store) openDatabase(ctx context.Context, client arangodb.Client) error {
	name := s.target.Database
	db, err := client.GetDatabase(ctx, name, nil)
	if err == nil {
		s.db = db
		return nil
	}
	if !shared.IsNotFound(err) {
		return mapErr(fmt.Sprintf("open database %q at %s", name, s.target.Endpoint), err)
	}
	if s.opts.ReadOnly {
		return &graphdb.NoIndexError{Where: s.target.String(), Why: fmt.Sprintf("database %q does not exist", name)}
	}
	db, err = client.CreateDatabase(ctx, name, nil)
	if shared.IsConflict(err) || shared.IsArangoErrorWithErrorNum(err, shared.ErrArangoDuplicateName) {
		db, err = client.GetDatabase(ctx, name, nil) // another process created it first
	}
	if err != nil {
		if shared.IsForbidden(err) || shared.IsUnauthorized(err) {
			return fmt.Errorf("create database %q at %s: user %q may not create databases; create it as an administrator or grant the user access: %w", name, s.target.Endpoint, s.target.User, err)
		}
		return mapErr(fmt.Sprintf("create database %q at %s", name, s.target.Endpoint), err)
	}
	s.log.Info("arango database created", "database", name)
	s.db = db
	return nil
}

// index is one persistent index relay keeps.
type index struct {
	collection string
	name       string
	fields     []string
}

// indexes lists the persistent indexes: node lookups by qname, name, loc,
// file (sorted by line), owner, kind and qname suffix; edge lookups by
// owner and kind, plus vertex-centric (_from, kind) and (_to, kind) so a
// traversal restricted to kinds reads only matching edges.
var indexes = []index{
	{colNodes, "relay_qname", []string{"qname"}},
	{colNodes, "relay_name", []string{"name"}},
	{colNodes, "relay_loc", []string{"loc"}},
	{colNodes, "relay_file", []string{"file", "start_line"}},
	{colNodes, "relay_owner", []string{"owner"}},
	{colNodes, "relay_kind", []string{"kind"}},
	{colNodes, "relay_suffixes", []string{"suffixes[*]"}},
	{colEdges, "relay_owner", []string{"owner"}},
	{colEdges, "relay_kind", []string{"kind"}},
	{colEdges, "relay_from_kind", []string{"_from", "kind"}},
	{colEdges, "relay_to_kind", []string{"_to", "kind"}},
}

// openSchema ensures (or, read-only, checks) collections, indexes, the
// named graph and the schema stamp.
func (s *Store) openSchema(ctx context.Context) error {
	cols := map[string]arangodb.Collection{}
	for _, name := range []string{colNodes, colFiles, colMeta, colEdges} {
		c, err := s.collection(ctx, name)
		if err != nil {
			return err
		}
		cols[name] = c
	}
	s.nodes, s.meta = cols[colNodes], cols[colMeta]
	if !s.opts.ReadOnly {
		for _, ix := range indexes {
			if _, _, err := cols[ix.collection].EnsurePersistentIndex(ctx, ix.fields, &arangodb.CreatePersistentIndexOptions{Name: ix.name}); err != nil {
				return mapErr(fmt.Sprintf("create index %s on %s", ix.name, ix.collection), err)
			}
		}
		if err := s.ensureGraph(ctx); err != nil {
			return err
		}
	}
	return s.checkStamp(ctx)
}

// collection returns (creating unless read-only) one of relay's collections.
func (s *Store) collection(ctx context.Context, name string) (arangodb.Collection, error) {
	c, err := s.db.GetCollection(ctx, name, nil)
	if err == nil {
		return c, nil
	}
	if !shared.IsNotFound(err) {
		return nil, mapErr(fmt.Sprintf("open collection %q", name), err)
	}
	if s.opts.ReadOnly {
		return nil, &graphdb.NoIndexError{Where: s.target.String(), Why: fmt.Sprintf("collection %q is missing", name)}
	}
	typ := arangodb.CollectionTypeDocument
	if name == colEdges {
		typ = arangodb.CollectionTypeEdge
	}
	c, err = s.db.CreateCollectionV2(ctx, name, &arangodb.CreateCollectionPropertiesV2{Type: &typ})
	if shared.IsConflict(err) || shared.IsArangoErrorWithErrorNum(err, shared.ErrArangoDuplicateName) {
		c, err = s.db.GetCollection(ctx, name, nil)
	}
	if err != nil {
		return nil, mapErr(fmt.Sprintf("create collection %q", name), err)
	}
	return c, nil
}

// ensureGraph creates the named graph over nodes and edges. Edges are
// written through the collection API, not the graph API, so an edge may
// point at a node no owner declares (yet): the contract keeps such
// dangling edges and hides them from reads.
func (s *Store) ensureGraph(ctx context.Context) error {
	ok, err := s.db.GraphExists(ctx, graphName)
	if err != nil {
		return mapErr(fmt.Sprintf("check graph %q", graphName), err)
	}
	if ok {
		return nil
	}
	def := &arangodb.GraphDefinition{
		Name:            graphName,
		EdgeDefinitions: []arangodb.EdgeDefinition{{Collection: colEdges, From: []string{colNodes}, To: []string{colNodes}}},
	}
	_, err = s.db.CreateGraph(ctx, graphName, def, nil)
	if err != nil && !shared.IsConflict(err) && !shared.IsArangoErrorWithErrorNum(err, shared.ErrGraphDuplicate) {
		return mapErr(fmt.Sprintf("create graph %q", graphName), err)
	}
	return nil
}

// stampDoc marks a database as holding a relay graph of one layout.
type stampDoc struct {
	Key     string `json:"_key"`
	Version int    `json:"version"`
}

// checkStamp refuses databases written with another layout and stamps new
// ones.
func (s *Store) checkStamp(ctx context.Context) error {
	var st stampDoc
	_, err := s.meta.ReadDocument(ctx, schemaKey, &st)
	switch {
	case err == nil:
		if st.Version != schemaVersion {
			return &LayoutError{Target: s.target, Have: st.Version, Want: schemaVersion}
		}
		return nil
	case !isDocNotFound(err):
		return mapErr("read schema stamp", err)
	case s.opts.ReadOnly:
		return &graphdb.NoIndexError{Where: s.target.String(), Why: "the database holds no relay graph"}
	}
	_, err = s.meta.CreateDocument(ctx, stampDoc{Key: schemaKey, Version: schemaVersion})
	if err != nil && !shared.IsConflict(err) {
		return mapErr("write schema stamp", err)
	}
	return nil
}

// Drop deletes the store's whole database (every graph in it, and the
// lease) and closes the store. It is for tests and for discarding a graph;
// the next Open recreates an empty one.
func (s *Store) Drop(ctx context.Context) error {
	cerr := s.Close()
	if err := s.db.Remove(ctx); err != nil && !shared.IsNotFound(err) {
		return errors.Join(cerr, mapErr(fmt.Sprintf("drop database %q", s.target.Database), err))
	}
	return cerr
}

// Target returns where the store lives (password masked by String).
func (s *Store) Target() Target { return s.target }

// Close rolls back an open transaction and releases idle connections.
// Calls after Close return an error wrapping graphdb.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.txMu.Lock()
	t := s.txOpen
	s.txMu.Unlock()
	var err error
	if t != nil {
		err = t.Rollback()
	}
	s.closeIdle()
	return err
}

func (s *Store) closeIdle() {
	if s.transport != nil {
		s.transport.CloseIdleConnections()
	}
}

func (s *Store) checkOpen() error {
	if s.closed.Load() {
		return fmt.Errorf("graph store %s: %w", s.target, graphdb.ErrClosed)
	}
	return nil
}

// queryAll runs a query and decodes every result into a T.
func queryAll[T any](ctx context.Context, q arangodb.DatabaseQuery, a aql) ([]T, error) {
	cur, err := q.Query(ctx, a.Text, &arangodb.QueryOptions{BindVars: a.Bind, BatchSize: 1000})
	if err != nil {
		return nil, err
	}
	defer cur.Close()
	var out []T
	for cur.HasMore() {
		var v T
		if _, err := cur.ReadDocument(ctx, &v); err != nil {
			if shared.IsNoMoreDocuments(err) {
				break
			}
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// queryOne runs a query that returns exactly one value into dst.
func (s *Store) queryOne(ctx context.Context, a aql, dst any) error {
	cur, err := s.db.Query(ctx, a.Text, &arangodb.QueryOptions{BindVars: a.Bind})
	if err != nil {
		return mapErr("query", err)
	}
	defer cur.Close()
	if _, err := cur.ReadDocument(ctx, dst); err != nil {
		return mapErr("read query result", err)
	}
	return nil
}
