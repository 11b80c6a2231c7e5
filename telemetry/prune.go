package telemetry

import (
	"context"
	"database/sql"
	"time"
)

// Retention is how much the store keeps.
type Retention struct {
	Days  int // spans that started longer ago are deleted; 0 keeps all
	MaxMB int // then the oldest traces go until the data fits; 0: no cap
}

// pruneChunk bounds one delete transaction, so the writer of another co
// process never waits long.
const pruneChunk = 2000

// Prune deletes spans past the retention and then the oldest traces while
// the database holds more than MaxMB, in small transactions, and gives the
// freed pages back to the file system. It returns the number of spans
// deleted. Run it off the start-up path.
func Prune(ctx context.Context, db *sql.DB, r Retention, now time.Time) (int64, error) {
	var total int64
	if r.Days > 0 {
		cutoff := now.Add(-time.Duration(r.Days) * 24 * time.Hour).UnixNano()
		for {
			res, err := db.ExecContext(ctx, `DELETE FROM spans WHERE rowid IN (SELECT rowid FROM spans WHERE start_time < ? LIMIT ?)`, cutoff, pruneChunk)
			if err != nil {
				return total, err
			}
			n, _ := res.RowsAffected()
			total += n
			if n < pruneChunk {
				break
			}
		}
	}
	if r.MaxMB > 0 {
		limit := int64(r.MaxMB) << 20
		for {
			used, err := usedBytes(ctx, db)
			if err != nil {
				return total, err
			}
			if used <= limit {
				break
			}
			// The oldest traces, whole: about as many spans as make the
			// excess, down to 90% of the cap, a chunk at a time.
			var n int64
			if err := db.QueryRowContext(ctx, `SELECT count(*) FROM spans`).Scan(&n); err != nil {
				return total, err
			}
			if n == 0 {
				break
			}
			excess := used - limit*9/10
			k := min(max(excess/max(used/n, 1)+1, 1), pruneChunk)
			res, err := db.ExecContext(ctx, `DELETE FROM spans WHERE trace_id IN (
SELECT trace_id FROM spans ORDER BY start_time LIMIT ?)`, k)
			if err != nil {
				return total, err
			}
			d, _ := res.RowsAffected()
			total += d
			if d == 0 {
				break
			}
		}
	}
	if total > 0 {
		if _, err := db.ExecContext(ctx, `PRAGMA incremental_vacuum`); err != nil {
			return total, err
		}
		if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			return total, err
		}
	}
	return total, nil
}

// usedBytes is the size of the pages in use (the file less its free list).
func usedBytes(ctx context.Context, db *sql.DB) (int64, error) {
	var pages, free, size int64
	if err := db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return 0, err
	}
	if err := db.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
		return 0, err
	}
	if err := db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil {
		return 0, err
	}
	return (pages - free) * size, nil
}
