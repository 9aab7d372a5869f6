// Command empty does nothing: the start-up and exit of a Go program, the
// floor under anything tether does (bench/run.sh runs it beside tether).
package main

func main() {}
