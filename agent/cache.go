package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sqlmcp/sqlmcp/internal/files"
)

type cache struct {
	dir   string
	model Model
}

// cacheEntry is one file of the cache: the request and the reply, kept
// whole so a person can read what was asked and answered.
type cacheEntry struct {
	Model    string    `json:"model"`
	Request  *Request  `json:"request"`
	Response *Response `json:"response"`
}

// NewCache returns a Model that keeps m's replies in dir, one indented JSON
// file per request, named by the SHA-256 of m.Name() and the whole request.
// A request seen before is answered from its file, with Cached set, and m
// is not called; errors are not kept. A file that cannot be read is a miss
// and is written again. The directory is created on the first write. It is
// safe for concurrent use, also by several processes: files are written
// whole and renamed into place.
func NewCache(dir string, m Model) Model { return &cache{dir: dir, model: m} }

func (c *cache) Name() string { return c.model.Name() }

func (c *cache) Complete(ctx context.Context, req *Request) (*Response, error) {
	key, err := json.Marshal(struct {
		Model   string   `json:"model"`
		Request *Request `json:"request"`
	}{c.model.Name(), req})
	if err != nil {
		return nil, fmt.Errorf("cache key: %w", err)
	}
	sum := sha256.Sum256(key)
	path := filepath.Join(c.dir, hex.EncodeToString(sum[:16])+".json")
	if b, err := os.ReadFile(path); err == nil {
		var e cacheEntry
		if json.Unmarshal(b, &e) == nil && e.Response != nil {
			e.Response.Cached = true
			return e.Response, nil
		}
	}
	resp, err := c.model.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	keep := *resp
	keep.Cached = false
	b, err := json.MarshalIndent(cacheEntry{Model: c.model.Name(), Request: req, Response: &keep}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("cache entry: %w", err)
	}
	if err := files.Write(path, append(b, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("writing the model cache: %w", err)
	}
	return resp, nil
}
