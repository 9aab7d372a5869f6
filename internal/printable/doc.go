// Package printable makes a string that came from a process safe to
// print on a terminal. A process's name, run id, command line and comm
// are whatever whoever started it wrote: an escape sequence among them
// would clear the screen, retitle the window or rewrite what the reader
// sees, and a bare C1 byte (0x9b) is a CSI to many terminals. Every
// command's text output goes through [String], the one rule: C0 and C1
// controls, DEL, the bidirectional overrides and invalid UTF-8 are
// written as Go escapes (\x1b, \u009b, \xff), the rest as it is. JSON
// output needs none of this: encoding/json escapes every control as
// JSON does.
package printable
