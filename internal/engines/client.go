package engines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// callLimit bounds every call to an engine but a stop, which waits the
// grace as well: an engine that does not answer within it is taken for
// one that never will.
const callLimit = 5 * time.Second

// ErrGone says the container was gone already when it was to be stopped
// or looked at: no engine knows it any more. To a user whose port it
// held, that is not a failure.
var ErrGone = errors.New("no such container")

// ErrUntrusted says that a socket, or a link on the way to it, is not
// one this process takes for an engine's: another user's, or open to
// more than its owner and the engine's group.
var ErrUntrusted = errors.New("not trusted")

// ErrNotVouched says that a process looks like an engine's helper or a
// container's (its name, its monitor's name), but no engine that could
// know it does: a name is anyone's to take, so it is not taken for a
// container's, and not for a plain process's either (the engine may just
// not be the one asked): it is not signalled.
var ErrNotVouched = errors.New("no engine vouches for it")

// ErrNotAsked says that the container's engine is not one this package
// asks: a Kubernetes pod's (the kubelet restarts what its runtime stops)
// or containerd's (it has no Docker Engine API).
var ErrNotAsked = errors.New("its engine is not asked")

// Error is a call to an engine's API that failed: no answer in time, an
// answer that is not the API's, a status that says no.
type Error struct {
	Socket string // the socket asked
	Op     string // "GET /version", "POST /containers/ID/stop", ...
	Err    error
}

func (e *Error) Error() string {
	at := "engine API"
	if e.Socket != "" {
		at += " at " + e.Socket
	}
	return at + ": " + e.Op + ": " + oneLine(e.Err.Error())
}

func (e *Error) Unwrap() error { return e.Err }

// oneLine keeps a message that came from an engine on one short line.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// client speaks the Docker Engine API (which Podman answers too) over a
// unix socket: net/http (exchange.go), one connection per call, each
// call within its limit.
type client struct {
	socket string       // as named: what errors say
	path   string       // resolved: what is dialled
	owner  int          // the socket's owner
	holder int          // the user whose process the engine is asked about, -1 for none (vouch)
	api    string       // "1.41": the version the engine answered
	web    *http.Client // dials path, checking its peer (newWeb)
}

// dial checks the socket at path (vouch) and makes a client of it; no
// connection is made until the first call. holder is the user whose
// process the engine is asked about (-1 for none): root trusts that
// user's own engine too.
func dial(path string, holder int) (*client, error) {
	holder = max(holder, 0)
	resolved, owner, err := vouch(path, holder)
	if err != nil {
		return nil, err
	}
	c := &client{socket: path, path: resolved, owner: owner, holder: holder}
	c.web = c.newWeb()
	return c, nil
}

// call makes one request of the API (its version prefix added once the
// version is known) and reads the whole answer, all within limit.
func (c *client) call(method, path, query string, limit time.Duration) (answer, error) {
	op := method + " " + path
	target := path
	if c.api != "" {
		target = "/v" + c.api + path
	}
	if query != "" {
		target += "?" + query
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	a, err := c.exchange(ctx, method, target)
	// Past the deadline, whatever broke off (a read, the connection) broke
	// off because of it.
	if err != nil && (errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil) {
		err = fmt.Errorf("no answer within %v: %w", limit, context.DeadlineExceeded)
	}
	if err != nil {
		return answer{}, &Error{Socket: c.socket, Op: op, Err: err}
	}
	return a, nil
}

// refused is the error for an answer with a status that says no: the
// engine's own message when it gave one.
func refused(status int, body []byte) error {
	var answer struct{ Message string }
	msg := ""
	if json.Unmarshal(body, &answer) == nil && answer.Message != "" {
		msg = answer.Message
	} else if len(body) > 0 {
		msg = strconv.QuoteToASCII(string(body[:min(len(body), 120)]))
	}
	text := strconv.Itoa(status)
	if name := http.StatusText(status); name != "" {
		text += " " + name
	}
	if msg != "" {
		text += ": " + msg
	}
	return errors.New(text)
}

// decode reads an answer into v; an answer that is not the JSON the API
// gives is the engine's failure.
func (c *client) decode(op string, body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return &Error{Socket: c.socket, Op: op, Err: fmt.Errorf("not the API's answer: %w", err)}
	}
	return nil
}

// apiVersion reports whether v is an API version as the engines give
// it, MAJOR.MINOR ("1.47"): one to three digits, the first not 0, a dot,
// one to three digits. It goes into the path of every later call. A
// check of its own rather than a regular expression compiled at start-up,
// which every tether command would pay for.
func apiVersion(v string) bool {
	major, minor, ok := strings.Cut(v, ".")
	digits := func(s string) bool {
		for _, c := range []byte(s) {
			if c < '0' || c > '9' {
				return false
			}
		}
		return len(s) >= 1 && len(s) <= 3
	}
	return ok && digits(major) && major[0] != '0' && digits(minor)
}

// version learns the engine's API version, which prefixes every later
// call: from the Api-Version header of GET /_ping, which both engines
// answer at once (Podman's GET /version gathers its host's details first
// and takes a second), else from GET /version's body.
func (c *client) version() error {
	a, err := c.call("GET", "/_ping", "", callLimit)
	if err != nil {
		return err
	}
	if a.status == 200 && apiVersion(a.api) {
		c.api = a.api
		return nil
	}
	const op = "GET /version"
	if a, err = c.call("GET", "/version", "", callLimit); err != nil {
		return err
	}
	if a.status != 200 {
		return &Error{Socket: c.socket, Op: op, Err: refused(a.status, a.body)}
	}
	var v struct{ ApiVersion string }
	if err := c.decode(op, a.body, &v); err != nil {
		return err
	}
	if !apiVersion(v.ApiVersion) {
		return &Error{Socket: c.socket, Op: op, Err: fmt.Errorf("ApiVersion %q is not an API version", clipString(v.ApiVersion))}
	}
	c.api = v.ApiVersion
	return nil
}

func clipString(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// listed is what this package reads of an entry of GET /containers/json.
type listed struct {
	ID     string `json:"Id"`
	Names  []string
	Image  string
	Labels map[string]string
	Ports  []struct {
		IP          string
		PrivatePort int
		PublicPort  int
		Type        string
	}
	NetworkSettings struct {
		Networks map[string]struct {
			IPAddress         string
			GlobalIPv6Address string
		}
	}
}

// list asks for the running containers.
func (c *client) list() ([]listed, error) {
	const op = "GET /containers/json"
	a, err := c.call("GET", "/containers/json", "", callLimit)
	if err != nil {
		return nil, err
	}
	if a.status != 200 {
		return nil, &Error{Socket: c.socket, Op: op, Err: refused(a.status, a.body)}
	}
	var list []listed
	if err := c.decode(op, a.body, &list); err != nil {
		return nil, err
	}
	return list, nil
}

// inspected is what this package reads of GET /containers/ID/json.
type inspected struct {
	ID     string `json:"Id"`
	Name   string
	Config struct {
		Image  string
		Labels map[string]string
	}
	State struct {
		Running bool
		Pid     int
	}
}

// inspect asks for one container; ErrGone (wrapped in an *Error) when
// the engine has none of that id.
func (c *client) inspect(id string) (inspected, error) {
	var info inspected
	path := "/containers/" + url.PathEscape(id) + "/json"
	a, err := c.call("GET", path, "", callLimit)
	if err != nil {
		return info, err
	}
	switch a.status {
	case 200:
	case 404:
		return info, &Error{Socket: c.socket, Op: "GET " + path, Err: ErrGone}
	default:
		return info, &Error{Socket: c.socket, Op: "GET " + path, Err: refused(a.status, a.body)}
	}
	err = c.decode("GET "+path, a.body, &info)
	return info, err
}

// stop asks the engine to stop a container, giving it secs seconds
// before its KILL, and waits for the answer (which the engine gives once
// the container is stopped) the grace and a call's limit more.
func (c *client) stop(id string, secs int) error {
	path := "/containers/" + url.PathEscape(id) + "/stop"
	limit := time.Duration(secs)*time.Second + callLimit
	a, err := c.call("POST", path, "t="+strconv.Itoa(secs), limit)
	if err != nil {
		return err
	}
	switch a.status {
	case 204, 200, 304:
		return nil
	case 404:
		return &Error{Socket: c.socket, Op: "POST " + path, Err: ErrGone}
	}
	return &Error{Socket: c.socket, Op: "POST " + path, Err: refused(a.status, a.body)}
}
