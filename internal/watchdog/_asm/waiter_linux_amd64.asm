# The watchdog's first stage for x86-64 Linux, in GNU as syntax.
# (The .asm name keeps the go tool from taking it for its own assembly.)
# go generate (./main.go, run from the package's directory) writes its
# machine code to ../waitercode_linux_amd64.go; TestWaiterMatchesSource
# reassembles this file where binutils are installed and compares.
#
# It does what the shell script watchScript (protocol.go) does: named
# tether-watchdog, with HUP INT QUIT PIPE and TERM ignored, it reads the
# supervisor's lines on fd 3 ("g PGID", "g-", "c DIR", "d"); on "d" it exits 0; on
# EOF (the supervisor died) it sends TERM to the group, writes 1 to
# DIR/cgroup.kill, and execs argv[1] with the arguments after it, the
# last of which, a placeholder, replaced by DIR (or ""), and fd 6 (the
# waiter itself) closed. It creates no process and allocates nothing.
#
# A line counts only whole: a value is taken at its newline, and a line
# the waiter cannot read (an unknown word, a group that is not a number
# below 2^31, a directory of PATH_MAX or more) is skipped, leaving what
# came before in place.
#
# Stack at entry: argc, argv[], NULL, envp[]. Registers kept across the
# system calls (which clobber rcx and r11 only): r15, a scratch area on
# the stack (laid out below); rbx, the entry stack; r12, the group to
# TERM (0: none); r13, the length of the cgroup directory at PATH (0:
# none); r14, a number or a directory being read.

	.equ CHAR, 0		# the byte read
	.equ PATH, 16		# the cgroup directory, then "/cgroup.kill"
	.equ STAGE, 0x1020	# a directory being read, until its newline
	.equ ACT, 0x2020	# struct sigaction: handler, flags, restorer, mask
	.equ FRAME, 0x2100
	.equ PATH_MAX, 4096

	.intel_syntax noprefix
	.text
	.globl _start
_start:
	mov rbx, rsp
	sub rsp, FRAME
	mov r15, rsp
	# Named as the shell script's watchdog is named, not after its path.
	mov edi, 15		# PR_SET_NAME
	lea rsi, [rip+name]
	mov eax, 157		# prctl
	syscall
	# Ignore HUP INT QUIT PIPE TERM: rt_sigaction(sig, {SIG_IGN}, 0, 8).
	lea rsi, [r15+ACT]
	mov qword ptr [rsi], 1	# SIG_IGN
	xor eax, eax
	mov [rsi+8], rax
	mov [rsi+16], rax
	mov [rsi+24], rax
	xor r14d, r14d
ignore:
	mov eax, 0x5007		# bit N-1 for signals 1 2 3 13 15
	bt eax, r14d
	jnc ignore_next
	lea edi, [r14+1]
	lea rsi, [r15+ACT]
	xor edx, edx
	mov r10d, 8
	mov eax, 13		# rt_sigaction
	syscall
ignore_next:
	inc r14d
	cmp r14d, 15
	jb ignore
	xor r12d, r12d
	xor r13d, r13d
line:
	call getc
	cmp al, 'd'
	je word_d
	cmp al, 'g'
	je word_g
	cmp al, 'c'
	je word_c
skip:
	cmp al, 10
	je line
	call getc
	jmp skip
word_d:
	call getc
	cmp al, 10
	jne skip
	xor edi, edi
	mov eax, 231		# exit_group
	syscall
word_g:
	call getc
	cmp al, '-'
	je group_none
	cmp al, ' '
	jne skip
	xor r14d, r14d
group_digit:
	call getc
	cmp al, 10
	je group_set
	sub eax, '0'
	cmp eax, 9
	ja skip_bad
	imul r14, r14, 10
	add r14, rax
	cmp r14, 0x7fffffff
	ja skip			# al holds 0 to 9 here: not a newline
	jmp group_digit
group_set:
	mov r12, r14
	jmp line
group_none:
	call getc
	cmp al, 10
	jne skip
	xor r12d, r12d
	jmp line
skip_bad:
	add eax, '0'
	jmp skip
word_c:
	call getc
	cmp al, ' '
	jne skip
	xor r14d, r14d
cgroup_char:
	call getc
	cmp al, 10
	je cgroup_set
	cmp r14d, PATH_MAX-1
	jae skip
	mov [r15+STAGE+r14], al
	inc r14d
	jmp cgroup_char
cgroup_set:
	lea rsi, [r15+STAGE]
	lea rdi, [r15+PATH]
	mov ecx, r14d
	rep movsb
	mov r13, r14
	jmp line

# getc reads one byte of fd 3 into al (eax); end of file or an error is
# the supervisor's death.
getc:
	xor eax, eax		# read
	mov edi, 3
	lea rsi, [r15+CHAR]
	mov edx, 1
	syscall
	cmp rax, 1
	jne dead
	movzx eax, byte ptr [r15+CHAR]
	ret

dead:
	test r12, r12
	jz no_group
	mov rdi, r12
	neg rdi
	mov esi, 15		# SIGTERM
	mov eax, 62		# kill
	syscall
no_group:
	lea rdi, [r15+PATH+r13]
	test r13d, r13d
	jz no_cgroup
	lea rsi, [rip+cgroup_kill]
	mov ecx, 13
	rep movsb
	lea rdi, [r15+PATH]
	mov esi, 0x80001	# O_WRONLY|O_CLOEXEC
	xor edx, edx
	mov eax, 2		# open
	syscall
	test eax, eax
	js cgroup_done
	mov edi, eax
	lea rsi, [rip+one]
	mov edx, 1
	mov eax, 1		# write
	syscall
cgroup_done:
	lea rdi, [r15+PATH+r13]
no_cgroup:
	mov byte ptr [rdi], 0
	# argv[argc-1], a placeholder, becomes the cgroup directory; fd 6,
	# the waiter itself, is closed; then execve(argv[1], &argv[1], envp).
	mov rcx, [rbx]
	lea rax, [r15+PATH]
	mov [rbx+8*rcx], rax
	mov edi, 6
	mov eax, 3		# close
	syscall
	mov rcx, [rbx]
	mov rdi, [rbx+16]
	lea rsi, [rbx+16]
	lea rdx, [rbx+8*rcx+16]
	mov eax, 59		# execve
	syscall
	mov edi, 127
	mov eax, 231		# exit_group
	syscall
name:
	.ascii "tether-watchdog\0"
cgroup_kill:
	.ascii "/cgroup.kill\0"
one:
	.ascii "1"
