// Package abandoned finds the stdio trees that their clients abandoned,
// and ends them, each whole.
//
// An MCP server (or a language server, or any stdio server) is started
// by its client with pipes or a socket for its standard input and
// output, and talked to through them alone. A client that dies without
// closing them cleanly, or drops the server without ending it, leaves
// a tree (npm exec, sh, node, maybe a browser) that nobody can talk to
// any more, reparented to init: tether never started it, so it carries
// no marker, and pkill by name would end the live sessions' servers too.
// What tells the abandoned tree from a live one is the kernel's own
// count of the other ends: no writer of its input, no reader of its
// output (internal/peers): the tree is left alone while anyone can still talk
// to it, whatever its name.
//
// Find lists such trees, each with why it is taken as abandoned or why
// it was left out; End ends the ones listed, each whole, after looking at
// it again through handles held on its members.
package abandoned
