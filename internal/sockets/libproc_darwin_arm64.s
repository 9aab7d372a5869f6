#include "textflag.h"

// Trampolines from the runtime's libc call (C calling convention: the
// arguments in R0 to R4) to libproc. Each one clears errno (its address
// from __error), calls the function with the arguments it was given, and
// turns a 0 answer into -1, so that syscall6 passes on errno: still 0 for
// a true empty answer, set for a failure.
//
// The frame holds the five arguments across __error. The assembler saves
// the caller's frame pointer just below the frame, where a C callee
// would store its own registers: the stack is lowered by 16 bytes more
// around the C calls, as the runtime's syscallN_trampoline does, so that
// the caller gets its frame pointer back intact.

TEXT libproc_listpids_trampoline<>(SB),NOSPLIT,$48-0
	MOVD	R0, 8(RSP)
	MOVD	R1, 16(RSP)
	MOVD	R2, 24(RSP)
	MOVD	R3, 32(RSP)
	MOVD	R4, 40(RSP)
	SUB	$16, RSP
	BL	libc_error(SB)
	MOVW	ZR, (R0)
	MOVD	24(RSP), R0
	MOVD	32(RSP), R1
	MOVD	40(RSP), R2
	MOVD	48(RSP), R3
	MOVD	56(RSP), R4
	BL	libc_proc_listpids(SB)
	ADD	$16, RSP
	CBNZW	R0, 2(PC)
	MOVW	$-1, R0
	RET

GLOBL	·libproc_listpids_trampoline_addr(SB), RODATA, $8
DATA	·libproc_listpids_trampoline_addr(SB)/8, $libproc_listpids_trampoline<>(SB)

TEXT libproc_pidinfo_trampoline<>(SB),NOSPLIT,$48-0
	MOVD	R0, 8(RSP)
	MOVD	R1, 16(RSP)
	MOVD	R2, 24(RSP)
	MOVD	R3, 32(RSP)
	MOVD	R4, 40(RSP)
	SUB	$16, RSP
	BL	libc_error(SB)
	MOVW	ZR, (R0)
	MOVD	24(RSP), R0
	MOVD	32(RSP), R1
	MOVD	40(RSP), R2
	MOVD	48(RSP), R3
	MOVD	56(RSP), R4
	BL	libc_proc_pidinfo(SB)
	ADD	$16, RSP
	CBNZW	R0, 2(PC)
	MOVW	$-1, R0
	RET

GLOBL	·libproc_pidinfo_trampoline_addr(SB), RODATA, $8
DATA	·libproc_pidinfo_trampoline_addr(SB)/8, $libproc_pidinfo_trampoline<>(SB)

TEXT libproc_pidfdinfo_trampoline<>(SB),NOSPLIT,$48-0
	MOVD	R0, 8(RSP)
	MOVD	R1, 16(RSP)
	MOVD	R2, 24(RSP)
	MOVD	R3, 32(RSP)
	MOVD	R4, 40(RSP)
	SUB	$16, RSP
	BL	libc_error(SB)
	MOVW	ZR, (R0)
	MOVD	24(RSP), R0
	MOVD	32(RSP), R1
	MOVD	40(RSP), R2
	MOVD	48(RSP), R3
	MOVD	56(RSP), R4
	BL	libc_proc_pidfdinfo(SB)
	ADD	$16, RSP
	CBNZW	R0, 2(PC)
	MOVW	$-1, R0
	RET

GLOBL	·libproc_pidfdinfo_trampoline_addr(SB), RODATA, $8
DATA	·libproc_pidfdinfo_trampoline_addr(SB)/8, $libproc_pidfdinfo_trampoline<>(SB)
