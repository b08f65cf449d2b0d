package workspace

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// DESIGN: the store key. A store relay wrote carries an HMAC-SHA256 under
// a per-user secret (see graphdb/embedded, Ownership); the secret lives
// outside every repository, in the user's config folder
// (os.UserConfigDir()/relay/store.key, or Options.KeyFile: the CLI takes
// it from RELAY_STORE_KEY),
// 32 random bytes created 0600 on first use. A store that came with a
// repository cannot carry a MAC under it, so it is rebuilt by `relay index`
// and refused by readers. RELAY_TRUST_STORE=1 (or --trust-store) believes a
// store whatever its MAC, for a store a team shares on purpose; `relay
// index` then seals it with this user's key.

// storeKeySize is the size of a store key in bytes.
const storeKeySize = 32

// DefaultKeyPath is where the store key lives when Options.KeyFile is not
// set: relay/store.key in the user's config folder.
func DefaultKeyPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config folder for relay's store key: %w", err)
	}
	return filepath.Join(dir, "relay", "store.key"), nil
}

var storeKeys sync.Map // path → []byte, read once per process

// StoreKey returns this user's store key (Options.KeyFile), creating it on
// first use.
func (w *Workspace) StoreKey() ([]byte, error) {
	p := w.o.KeyFile
	if p == "" {
		var err error
		if p, err = DefaultKeyPath(); err != nil {
			if a := w.o.Advice.KeyFile; a != "" {
				err = fmt.Errorf("%w (%s)", err, a)
			}
			return nil, err
		}
	}
	if k, ok := storeKeys.Load(p); ok {
		return k.([]byte), nil
	}
	k, err := loadOrCreateKey(p)
	if err != nil {
		return nil, err
	}
	storeKeys.Store(p, k)
	return k, nil
}

// loadOrCreateKey reads the key file p, or creates it (0600, in a 0700
// folder) with fresh random bytes when it does not exist. Creation is a
// link of a complete temporary file, so two processes starting at once
// agree on one key.
func loadOrCreateKey(p string) ([]byte, error) {
	k, err := readKey(p)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("create the folder of relay's store key: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), filepath.Base(p)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create relay's store key: %w", err)
	}
	defer os.Remove(tmp.Name())
	key := make([]byte, storeKeySize)
	rand.Read(key)
	_, err = tmp.Write(key)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("write relay's store key %s: %w", p, err)
	}
	if err := os.Link(tmp.Name(), p); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create relay's store key %s: %w", p, err)
	}
	return readKey(p)
}

// readKey reads a key file: a regular file (not a link) that only its
// owner may read, holding storeKeySize bytes.
func readKey(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("relay's store key %s is not a regular file (%s): remove it, and relay creates a new one (every index is then rebuilt once)", p, fi.Mode().Type())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("relay's store key %s may be read by others (mode %v): chmod 600 it, or remove it and let relay create a new one (every index is then rebuilt once)", p, fi.Mode().Perm())
	}
	k, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read relay's store key: %w", err)
	}
	if len(k) != storeKeySize {
		return nil, fmt.Errorf("relay's store key %s holds %d bytes, not %d: remove it, and relay creates a new one (every index is then rebuilt once)", p, len(k), storeKeySize)
	}
	return k, nil
}

// ownerOptions are what every embedded store of this process opens with
// to judge whose it is: the store key and the trust setting.
func (w *Workspace) ownerOptions() (key []byte, trust bool, err error) {
	key, err = w.StoreKey()
	return key, w.o.TrustStore, err
}
