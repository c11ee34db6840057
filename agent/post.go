package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sqlmcp/sqlmcp/internal/text"
)

// DefaultTimeout is how long one model call may take when the options do
// not say: long enough for a slow local model to write a full reply.
const DefaultTimeout = 2 * time.Minute

// endpoint is one model API's POST endpoint, called with JSON and answering
// JSON, with retries and a per-call timeout. The provider clients differ
// only in what they send and read.
type endpoint struct {
	what    string // "anthropic messages", for errors
	url     string
	header  http.Header
	client  *http.Client
	retries int
	timeout time.Duration
}

// newEndpoint joins base and path, and turns the options' conventions
// (nil client, zero retries and timeout for the defaults, negative
// retries for none) into values.
func newEndpoint(what, base, path string, header http.Header, client *http.Client, retries int, timeout time.Duration) *endpoint {
	if client == nil {
		client = http.DefaultClient
	}
	switch {
	case retries == 0:
		retries = 2
	case retries < 0:
		retries = 0
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &endpoint{what: what, url: strings.TrimRight(base, "/") + path, header: header, client: client, retries: retries, timeout: timeout}
}

// shown is the endpoint's URL as errors name it: any password hidden.
func (e *endpoint) shown() string {
	if u, err := url.Parse(e.url); err == nil {
		return u.Redacted()
	}
	return e.what
}

// TimeoutError is a model call that got no reply in time: the endpoint
// took the request and did not answer.
type TimeoutError struct {
	What, URL string
	Timeout   time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s: no reply from %s within %s: the endpoint took the request and did not answer (raise the model timeout, or check the endpoint)", e.What, e.URL, e.Timeout)
}

// APIError is a reply with an error status.
type APIError struct {
	What       string
	StatusCode int
	Type       string // the API's error type, as "invalid_request_error"; may be ""
	Message    string // the API's message, or the start of the body
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("%s: %d %s", e.What, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Type != "" {
		s += ": " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// post sends in as JSON and decodes the reply into out. A connection
// error, 408, 409, 429 or 5xx is retried with backoff (or after the
// server's Retry-After), a reply that does not come within the timeout is
// a *TimeoutError, not retried, and any other error status an *APIError.
func (e *endpoint) post(ctx context.Context, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("%s: encoding the request: %w", e.what, err)
	}
	for attempt := 0; ; attempt++ {
		retry, wait, err := e.once(ctx, body, out)
		if err == nil || !retry || attempt >= e.retries {
			return err
		}
		if wait < 0 {
			wait = backoff(attempt)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// once makes one call. It says whether a failure may be retried, and
// after how long the server asked (negative when it did not say).
func (e *endpoint) once(ctx context.Context, body []byte, out any) (retry bool, wait time.Duration, err error) {
	cctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return false, 0, fmt.Errorf("%s: %w", e.what, err)
	}
	for k, v := range e.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	timedOut := func(err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return &TimeoutError{What: e.what, URL: e.shown(), Timeout: e.timeout}
		}
		return nil
	}
	resp, err := e.client.Do(req)
	if err != nil {
		if terr := timedOut(err); terr != nil {
			return false, 0, terr
		}
		return true, -1, fmt.Errorf("%s: %w", e.what, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		if terr := timedOut(err); terr != nil {
			return false, 0, terr
		}
		return true, -1, fmt.Errorf("%s: reading the reply: %w", e.what, err)
	}
	if resp.StatusCode/100 != 2 {
		return retryable(resp), retryAfter(resp.Header), apiError(e.what, resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return false, 0, fmt.Errorf("%s: reading the reply: %w", e.what, err)
	}
	return false, 0, nil
}

// retryable reports whether an error status is worth another try: the
// server's x-should-retry when it says, else 408, 409, 429 and 5xx.
func retryable(resp *http.Response) bool {
	switch resp.Header.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	c := resp.StatusCode
	return c == http.StatusRequestTimeout || c == http.StatusConflict || c == http.StatusTooManyRequests || c >= 500
}

// retryAfter reads Retry-After-Ms or Retry-After (seconds or a date),
// held between zero and a minute; -1 when neither says.
func retryAfter(h http.Header) time.Duration {
	var d time.Duration
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil {
		d = time.Duration(ms * float64(time.Millisecond))
	} else if s, err := strconv.ParseFloat(h.Get("Retry-After"), 64); err == nil {
		d = time.Duration(s * float64(time.Second))
	} else if t, err := http.ParseTime(h.Get("Retry-After")); err == nil {
		d = time.Until(t)
	} else {
		return -1
	}
	return min(max(d, 0), time.Minute)
}

// backoff is the wait before retry n+1: half a second doubling up to 8 s,
// less up to a quarter at random.
func backoff(n int) time.Duration {
	d := min(time.Duration(float64(500*time.Millisecond)*float64(int(1)<<min(n, 10))), 8*time.Second)
	return d - time.Duration(rand.Int64N(int64(d/4)+1))
}

// apiError reads the error both APIs send, {"error": {"type", "message"}},
// or keeps the start of a body in another shape.
func apiError(what string, code int, body []byte) *APIError {
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && (e.Error.Message != "" || e.Error.Type != "") {
		return &APIError{What: what, StatusCode: code, Type: e.Error.Type, Message: e.Error.Message}
	}
	return &APIError{What: what, StatusCode: code, Message: text.OneLine(string(body), 300)}
}
