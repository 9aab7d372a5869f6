// Package hosts turns a host as a user writes it (an IP address,
// localhost, a name in /etc/hosts or in DNS: a compose service, a VM)
// into addresses, and tells this machine's addresses from another's, all
// without package net: net would link the C library's resolver into a
// build with cgo (a dynamic executable, and its cost at every start of
// every tether command), for the few names tether wait is given.
//
// A name is looked up as the C library does by default (files, then
// dns): /etc/hosts first, then an A and an AAAA query over UDP to each
// nameserver of /etc/resolv.conf in turn, with its search domains for a
// name with fewer dots than ndots. That is enough for the names a wait
// is given (Docker's embedded DNS at 127.0.0.11, systemd-resolved's stub
// at 127.0.0.53, a CI runner's resolver); mDNS, NIS and nsswitch modules
// are not consulted.
package hosts
