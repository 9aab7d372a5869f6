# bash completion for tether
# Install: tether completion bash > /etc/bash_completion.d/tether
#      or: source <(tether completion bash)   (in ~/.bashrc)
_tether() {
	local cur=${COMP_WORDS[COMP_CWORD]} i
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			# The command's own words: never ask tether, which would run it.
			COMPREPLY=($(compgen -f -- "$cur"))
			return
		fi
	done
	local words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
	# "--" would end tether's flags: "-" asks for all of them.
	if [[ $cur == -- ]]; then
		words+=(-)
	elif [[ $cur == -* ]]; then
		words+=("$cur")
	fi
	COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "${words[@]}" --generate-bash-completion 2>/dev/null)" -- "$cur"))
}
complete -o default -F _tether tether
