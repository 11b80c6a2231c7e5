package telemetry

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Answered is the model a server said answered a chat request
// (gen_ai.response.model), and when: an alias such as
// gemini-flash-latest shows here as the model behind it.
type Answered struct {
	Model string
	At    time.Time
}

// LastAnswered returns what answered the most recent chat span of provider
// for requestModel; ok is false when no such span is stored (or there is
// no store yet). It reads the spans newest first and stops at the first
// match, so `co status` stays fast.
func (s *Store) LastAnswered(ctx context.Context, provider, requestModel string) (a Answered, ok bool, err error) {
	db, err := s.conn(ctx)
	if errors.Is(err, ErrNoStore) {
		return a, false, nil
	}
	if err != nil {
		return a, false, err
	}
	var model sql.NullString
	var end sql.NullInt64
	err = db.QueryRowContext(ctx, `SELECT json_extract(attributes, '$."gen_ai.response.model"'), end_time FROM spans
WHERE name = ? AND json_extract(attributes, '$."gen_ai.provider.name"') = ? AND json_extract(attributes, '$."gen_ai.request.model"') = ?
  AND json_extract(attributes, '$."gen_ai.response.model"') IS NOT NULL
ORDER BY rowid DESC LIMIT 1`, "chat "+requestModel, provider, requestModel).Scan(&model, &end)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && model.String == "") {
		return a, false, nil
	}
	if err != nil {
		return a, false, err
	}
	return Answered{Model: model.String, At: time.Unix(0, end.Int64)}, true, nil
}
