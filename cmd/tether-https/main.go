// Command tether-https asks an https URL once, for tether wait, and
// prints the answer's status and Location: what tether needs to judge a
// dev server's TLS endpoint ready.
//
// It is a program of its own because a TLS client linked into tether
// would be paid for by every tether run: crypto/tls and package net make
// the binary larger by a sixth and its start-up slower by 3 to 4 ms on
// the machines this was measured on (docs/performance.md), against a
// bar of a tenth over the floor for run --exec. The helper is started
// only by a wait for an https URL, once per check.
//
//	tether-https [-insecure] [-timeout DURATION] URL
//
// The output is one line per fact, each tagged, so that a program of
// another name or version is told from this one:
//
//	tether-https status 302
//	tether-https location /login
//
// and, when no answer came, one line "tether-https error REASON" with
// exit status 1. Bad usage is exit status 2. Redirects are not followed
// here: tether follows them, over http or https, with its own limit.
package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	flags := flag.NewFlagSet("tether-https", flag.ContinueOnError)
	flags.SetOutput(os.Stderr)
	insecure := flags.Bool("insecure", false, "accept a certificate that does not verify (self-signed)")
	timeout := flags.Duration("timeout", time.Second, "how long the GET may take, connecting included")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() != 1 || *timeout <= 0 {
		fmt.Fprintln(os.Stderr, "usage: tether-https [-insecure] [-timeout DURATION] https://HOST[:PORT]/PATH")
		return 2
	}
	raw := flags.Arg(0)
	if u, err := url.Parse(raw); err != nil || u.Scheme != "https" || u.Host == "" {
		fmt.Fprintf(os.Stderr, "tether-https: invalid URL %q: not an https://HOST URL\n", raw)
		return 2
	}
	status, location, err := get(raw, *insecure, *timeout)
	if isTimeout(err) {
		err = fmt.Errorf("no answer within %v", *timeout)
	}
	if err != nil {
		fmt.Printf("tether-https error %s\n", oneLine(err))
		return 1
	}
	fmt.Printf("tether-https status %d\n", status)
	if location != "" {
		fmt.Printf("tether-https location %s\n", oneLine(errors.New(location)))
	}
	return 0
}

// get sends one GET through no proxy (the wait is for this server, not
// for a proxy's idea of it) and reads the status line and headers only:
// the body can be anything, endless included.
func get(raw string, insecure bool, timeout time.Duration) (int, string, error) {
	tr := &http.Transport{
		Proxy:             nil,
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: insecure},
		DisableKeepAlives: true,
	}
	client := &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	req, err := http.NewRequest(http.MethodGet, raw, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("User-Agent", "tether-wait")
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", reason(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location"), nil
}

// timeoutError is a GET that ran out of time.
type timeoutError struct{ error }

func isTimeout(err error) bool {
	var t timeoutError
	return errors.As(err, &t)
}

// reason strips the request's own words ("Get \"https://…\": ") from a
// client error: tether names the URL itself.
func reason(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return timeoutError{ue.Err}
		}
		// A refused or unreachable connection in the words tether's
		// own http check uses: the errno's text.
		var errno syscall.Errno
		var op *net.OpError
		if errors.As(ue.Err, &op) && op.Op == "dial" && errors.As(op.Err, &errno) {
			return errno
		}
		return ue.Err
	}
	return err
}

// oneLine keeps a reason to one line of printable text.
func oneLine(err error) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, err.Error())
}
