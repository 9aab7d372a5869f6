package engines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// An engine's API is asked with net/http over its unix socket: one
// connection per call (no keep-alive: a call is rare, and a connection
// kept would outlive the check of who listens), no proxy (HTTP_PROXY is
// for the network, never for a local socket), the dialer checking the
// peer before a byte is sent. The standard library reads what the
// engines send, HTTP/1.1's chunked answers included, and is linked into
// tether already for wait's GETs.

// maxAnswer bounds an answer's body read from an engine: a list of a
// thousand containers is a few megabytes. maxHeaders bounds its headers.
const (
	maxAnswer  = 16 << 20
	maxHeaders = 64 << 10
)

// engineURL is the scheme and host of every request: a placeholder, as
// the socket dialled is the destination, sent as the Host header that
// the engines' own clients send.
const engineURL = "http://docker"

// answer is what is read of an engine's answer: its status, its body,
// and its API version when a header gives it (Api-Version, which Docker
// and Podman send with every answer, /_ping's included).
type answer struct {
	status int
	body   []byte
	api    string
}

// newWeb is the HTTP client of c. One per client rather than one
// shared: its dialer closes over the socket and the user whose engine
// is trusted, so that no request has to carry them to a shared dialer,
// and with keep-alives off a shared one would have nothing to pool. No
// compression is asked for: the bound is on what the engine sends.
func (c *client) newWeb() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                  nil,
			DialContext:            c.dialPeer,
			DisableKeepAlives:      true,
			DisableCompression:     true,
			MaxResponseHeaderBytes: maxHeaders,
		},
		// A redirect is the engine's answer, not a call to make: a
		// POST followed would be sent again as a GET.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// exchange sends one request to the engine and reads the whole answer,
// the connection and the check of who listens included, before ctx's
// deadline.
func (c *client) exchange(ctx context.Context, method, target string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, engineURL+target, nil)
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("User-Agent", "tether")
	resp, err := c.web.Do(req)
	if err != nil {
		// The URL is the placeholder's, which the error's Op and Socket
		// say better: what failed is what is kept.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("the connection closed without an answer: %w", err)
		}
		return answer{}, err
	}
	defer resp.Body.Close()
	// A length said first is refused before a byte of it is read.
	var body []byte
	if resp.ContentLength <= maxAnswer {
		body, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
		if err != nil {
			return answer{}, fmt.Errorf("read the answer: %w", err)
		}
	}
	if resp.ContentLength > maxAnswer || len(body) > maxAnswer {
		return answer{}, fmt.Errorf("an answer longer than %d bytes", maxAnswer)
	}
	api := strings.TrimSpace(resp.Header.Get("Api-Version"))
	return answer{status: resp.StatusCode, body: body, api: api}, nil
}
