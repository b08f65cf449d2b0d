// Package store keeps user preferences.
package store

import (
	"errors"
	"sort"
	"sync"
)

// ErrNotFound is returned for an unknown user.
var ErrNotFound = errors.New("store: not found")

// User is a person who receives notifications.
type User struct {
	ID     string
	Email  string
	Phone  string
	OptOut bool
}

// Reader looks users up.
type Reader interface {
	Get(id string) (User, error)
}

// Writer saves users.
type Writer interface {
	Put(u User) error
}

// Store reads and writes users.
type Store interface {
	Reader
	Writer
}

// Memory is an in-memory Store.
type Memory struct {
	mu    sync.RWMutex
	users map[string]User
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory { return &Memory{users: map[string]User{}} }

// Get implements Reader.
func (m *Memory) Get(id string) (User, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	u, ok := m.users[id]
	if !ok {
		return User{}, ErrNotFound
	}
	return u, nil
}

// Put implements Writer.
func (m *Memory) Put(u User) error {
	if u.ID == "" {
		return errors.New("store: user without id")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.users[u.ID] = u
	return nil
}

// IDs returns every user id, sorted.
func (m *Memory) IDs() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	ids := make([]string, 0, len(m.users))
	for id := range m.users {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
