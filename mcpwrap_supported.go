//go:build linux || darwin

package main

// wrapSupported: tether run supervises here, so an entry wrapped in it
// starts its server.
const wrapSupported = true
