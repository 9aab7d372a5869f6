# The watchdog's waiting half for x86-64 Linux, in GNU as syntax. spawn's
# waiterCode holds its machine code; TestWaiterMatchesSource reassembles
# this file where binutils are installed and compares the two.
#
# It does what the shell script watchScript does: named tether-watchdog,
# with HUP INT QUIT PIPE and TERM ignored, it reads the supervisor's
# lines on fd 3 ("g PGID", "g-", "c DIR", "d"); on "d" it exits 0; on
# EOF (the supervisor died) it sends TERM to the group, writes 1 to DIR/cgroup.kill, and execs
# argv[1] with the arguments after it, the last of which, a placeholder,
# replaced by DIR (or ""), and fd 6 (the waiter itself) closed. It
# creates no process and allocates nothing.
#
# Stack at entry: argc, argv[], NULL, envp[]. Registers kept across the
# system calls (which clobber rcx and r11 only):
# r15: scratch page (byte 0: the character read; 16..: the cgroup path)
# rbx: the entry stack; r12: the group to TERM (0: none); r13: the length
# of the cgroup directory (0: none); r14: a number being read.

	.intel_syntax noprefix
	.text
	.globl _start
_start:
	mov rbx, rsp
	sub rsp, 0x1100
	mov r15, rsp
	# Named as the shell script's watchdog is named, not after its path.
	mov edi, 15
	lea rsi, [rip+name]
	mov eax, 157
	syscall
	# Ignore HUP INT QUIT PIPE TERM: rt_sigaction(sig, {SIG_IGN}, 0, 8).
	lea rsi, [r15+0x1080]
	mov qword ptr [rsi], 1
	xor eax, eax
	mov [rsi+8], rax
	mov [rsi+16], rax
	mov [rsi+24], rax
	xor r14d, r14d
ignore:
	mov eax, 0x5007
	bt eax, r14d
	jnc ignore_next
	lea edi, [r14+1]
	lea rsi, [r15+0x1080]
	xor edx, edx
	mov r10d, 8
	mov eax, 13
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
	mov eax, 231
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
	jmp group_digit
group_set:
	mov r12, r14
	jmp line
group_none:
	xor r12d, r12d
	call getc
	jmp skip
skip_bad:
	add eax, '0'
	jmp skip
word_c:
	call getc
	cmp al, ' '
	jne skip
	xor r13d, r13d
cgroup_char:
	call getc
	cmp al, 10
	je line
	cmp r13d, 4000
	jae cgroup_long
	mov [r15+16+r13], al
	inc r13d
	jmp cgroup_char
cgroup_long:
	xor r13d, r13d
	jmp skip

# getc reads one byte of fd 3 into al (eax); EOF or an error is the
# supervisor's death.
getc:
	xor eax, eax
	mov edi, 3
	mov rsi, r15
	mov edx, 1
	syscall
	cmp rax, 1
	jne dead
	movzx eax, byte ptr [r15]
	ret

dead:
	test r12, r12
	jz no_group
	mov rdi, r12
	neg rdi
	mov esi, 15
	mov eax, 62
	syscall
no_group:
	lea rdi, [r15+16+r13]
	test r13d, r13d
	jz no_cgroup
	lea rsi, [rip+cgroup_kill]
	mov ecx, 13
	rep movsb
	lea rdi, [r15+16]
	mov esi, 0x80001
	xor edx, edx
	mov eax, 2
	syscall
	test eax, eax
	js cgroup_done
	mov edi, eax
	lea rsi, [rip+one]
	mov edx, 1
	mov eax, 1
	syscall
cgroup_done:
	lea rdi, [r15+16+r13]
no_cgroup:
	mov byte ptr [rdi], 0
	# argv[argc-1], a placeholder, becomes the cgroup directory; then
	# execve(argv[1], &argv[1], envp).
	mov rcx, [rbx]
	lea rax, [r15+16]
	mov [rbx+8*rcx], rax
	mov edi, 6
	mov eax, 3
	syscall
	mov rcx, [rbx]
	mov rdi, [rbx+16]
	lea rsi, [rbx+16]
	lea rdx, [rbx+8*rcx+16]
	mov eax, 59
	syscall
	mov edi, 127
	mov eax, 231
	syscall
name:
	.ascii "tether-watchdog\0"
cgroup_kill:
	.ascii "/cgroup.kill\0"
one:
	.ascii "1"
