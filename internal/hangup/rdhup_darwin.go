package hangup

// pollRDHUP is nothing of its own on macOS: a socket's half-close is
// POLLHUP there (EV_EOF on the read filter).
const pollRDHUP = 0
