#include "textflag.h"

// Trampolines from the runtime's libc call (C calling convention: the
// arguments in DI, SI, DX, CX, R8) to libproc. Each one clears errno
// (its address from __error), calls the function with the arguments it
// was given, and turns a 0 answer into -1, so that syscall6 passes on
// errno: still 0 for a true empty answer, set for a failure. The frame
// holds the five arguments across __error and keeps the stack 16-byte
// aligned at each call.

TEXT libproc_listpids_trampoline<>(SB),NOSPLIT,$48-0
	MOVQ	DI, 0(SP)
	MOVQ	SI, 8(SP)
	MOVQ	DX, 16(SP)
	MOVQ	CX, 24(SP)
	MOVQ	R8, 32(SP)
	CALL	libc_error(SB)
	MOVL	$0, (AX)
	MOVQ	0(SP), DI
	MOVQ	8(SP), SI
	MOVQ	16(SP), DX
	MOVQ	24(SP), CX
	MOVQ	32(SP), R8
	CALL	libc_proc_listpids(SB)
	TESTL	AX, AX
	JNE	2(PC)
	MOVL	$-1, AX
	RET

GLOBL	·libproc_listpids_trampoline_addr(SB), RODATA, $8
DATA	·libproc_listpids_trampoline_addr(SB)/8, $libproc_listpids_trampoline<>(SB)

TEXT libproc_pidinfo_trampoline<>(SB),NOSPLIT,$48-0
	MOVQ	DI, 0(SP)
	MOVQ	SI, 8(SP)
	MOVQ	DX, 16(SP)
	MOVQ	CX, 24(SP)
	MOVQ	R8, 32(SP)
	CALL	libc_error(SB)
	MOVL	$0, (AX)
	MOVQ	0(SP), DI
	MOVQ	8(SP), SI
	MOVQ	16(SP), DX
	MOVQ	24(SP), CX
	MOVQ	32(SP), R8
	CALL	libc_proc_pidinfo(SB)
	TESTL	AX, AX
	JNE	2(PC)
	MOVL	$-1, AX
	RET

GLOBL	·libproc_pidinfo_trampoline_addr(SB), RODATA, $8
DATA	·libproc_pidinfo_trampoline_addr(SB)/8, $libproc_pidinfo_trampoline<>(SB)

TEXT libproc_pidfdinfo_trampoline<>(SB),NOSPLIT,$48-0
	MOVQ	DI, 0(SP)
	MOVQ	SI, 8(SP)
	MOVQ	DX, 16(SP)
	MOVQ	CX, 24(SP)
	MOVQ	R8, 32(SP)
	CALL	libc_error(SB)
	MOVL	$0, (AX)
	MOVQ	0(SP), DI
	MOVQ	8(SP), SI
	MOVQ	16(SP), DX
	MOVQ	24(SP), CX
	MOVQ	32(SP), R8
	CALL	libc_proc_pidfdinfo(SB)
	TESTL	AX, AX
	JNE	2(PC)
	MOVL	$-1, AX
	RET

GLOBL	·libproc_pidfdinfo_trampoline_addr(SB), RODATA, $8
DATA	·libproc_pidfdinfo_trampoline_addr(SB)/8, $libproc_pidfdinfo_trampoline<>(SB)
