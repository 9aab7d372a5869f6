package probe

// Why is what a [Report]'s verdict rests on: its kind and the values
// that say it, for a caller to word. It is the zero Why for a process
// supervised by a supervisor found alive, the one verdict that needs no
// more. The supervisor's PID, state and namespace are the Report's
// Supervisor, and the parent its PPID.
type Why struct {
	Kind WhyKind
	// Var is the variable the kind is about: the marker or name
	// variable (NoMarker, WrongMarker, NoName, WrongName),
	// TETHER_SUPERVISOR (NoSupervisorVar, BadSupervisorVar) or
	// TETHER_PIDNS (BadNamespaceVar).
	Var string
	// Value is what Var holds (WrongMarker, WrongName,
	// BadSupervisorVar, BadNamespaceVar).
	Value string
	// Want is what Var was to hold (NoMarker, WrongMarker, NoName,
	// WrongName).
	Want string
	// Err is what failed (Unreadable, NamespaceUnreadable,
	// TableUnknown).
	Err error
	// Leader is the process whose thread the PID is (Thread).
	Leader int
}

// WhyKind is the kind of a [Why].
type WhyKind string

// The kinds of why, by the verdict they go with.
const (
	// Exited: Zombie; it exited and its parent has not reaped it.
	Exited WhyKind = "exited"
	// KernelThread: Foreign; a kernel thread has no environment.
	KernelThread WhyKind = "kernel-thread"
	// NoMarker: Foreign; the environment has no Var=Want entry.
	NoMarker WhyKind = "no-marker"
	// WrongMarker: Foreign; Var holds Value, not Want.
	WrongMarker WhyKind = "wrong-marker"
	// NoName: Foreign; marked, but without the name variable Var (Want
	// was asked for).
	NoName WhyKind = "no-name"
	// WrongName: Foreign; the name variable Var holds Value, not Want.
	WrongName WhyKind = "wrong-name"
	// Overwritten: Unverifiable; the process wrote its title over its
	// environment, and what is left cannot say whose it is.
	Overwritten WhyKind = "overwritten"
	// SupervisorUnreadable: Supervised; the supervisor cannot be read
	// (its state is SupervisorUnknown), and is counted as alive.
	SupervisorUnreadable WhyKind = "supervisor-unreadable"
	// SupervisorEnded: Stranded; the supervisor is gone, a zombie, or
	// its PID was reused (its state says which).
	SupervisorEnded WhyKind = "supervisor-ended"
	// BadNamespaceVar: Unverifiable; Var (TETHER_PIDNS) holds Value, not
	// a namespace, so the supervisor's PID cannot be placed.
	BadNamespaceVar WhyKind = "bad-namespace-var"
	// NamespaceUnreadable: Unverifiable; the PID namespace of the
	// process cannot be read (Err).
	NamespaceUnreadable WhyKind = "namespace-unreadable"
	// TableUnknown: Unverifiable; the PID namespace the reader's /proc
	// shows cannot be told (Err), to find the supervisor in.
	TableUnknown WhyKind = "table-unknown"
	// SupervisorHidden: Unverifiable; the supervisor's PID namespace
	// (Supervisor.Namespace) is out of the reader's sight.
	SupervisorHidden WhyKind = "supervisor-hidden"
	// SupervisorUnresolved: Unverifiable; the supervisor cannot be found
	// in its namespace (Supervisor.Namespace) because the namespaces of
	// some processes cannot be read.
	SupervisorUnresolved WhyKind = "supervisor-unresolved"
	// NoSupervisorVar: tethered without Var (TETHER_SUPERVISOR);
	// Stranded when the parent is PID 1, else Supervised.
	NoSupervisorVar WhyKind = "no-supervisor-var"
	// BadSupervisorVar: Var (TETHER_SUPERVISOR) holds Value, not a
	// supervisor's id; Stranded when the parent is PID 1, else
	// Supervised.
	BadSupervisorVar WhyKind = "bad-supervisor-var"
	// Thread: Gone; the PID is a thread of process Leader, not a
	// process.
	Thread WhyKind = "thread"
	// NoProcess: Gone; no process has the PID.
	NoProcess WhyKind = "no-process"
	// Unreadable: Unverifiable; the process cannot be read (Err).
	Unreadable WhyKind = "unreadable"
)
