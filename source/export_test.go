package source

import "context"

// DistinctFromStats is Distinct's answer from the engine's statistics,
// which a table counted in time never reaches.
func (db *DB) DistinctFromStats(ctx context.Context, t TableRef, col, filter string, limit int) (*Distinct, error) {
	return db.distinctFromStats(ctx, t, col, filter, limit)
}
