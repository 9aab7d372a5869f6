#include "textflag.h"

// The runtime calls the trampoline with the C calling convention; it
// jumps to libSystem's pthread_sigmask, as golang.org/x/sys/unix's own
// trampolines jump to libc.

TEXT libc_pthread_sigmask_trampoline<>(SB),NOSPLIT,$0-0
	JMP	libc_pthread_sigmask(SB)

GLOBL	·libc_pthread_sigmask_trampoline_addr(SB), RODATA, $8
DATA	·libc_pthread_sigmask_trampoline_addr(SB)/8, $libc_pthread_sigmask_trampoline<>(SB)
