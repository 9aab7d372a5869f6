//go:build !(linux || darwin)

package main

// wrapSupported: tether run exits 125 here without starting anything
// (no parent-death signal, docs/platforms.md), so every entry wrapped
// in it would stop starting its server. unwrap and list still work.
const wrapSupported = false
