package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionScripts are the scripts tether completion prints, by shell.
// Each asks tether itself for the candidates (urfave/cli's
// --generate-bash-completion), except after "--", where the words are the
// command's own and file names are offered.
var completionScripts = map[string]func(app *cli.App) (string, error){
	"bash": func(*cli.App) (string, error) { return bashCompletion, nil },
	"zsh":  func(*cli.App) (string, error) { return zshCompletion, nil },
	"fish": func(app *cli.App) (string, error) {
		s, err := app.ToFishCompletion()
		return "# fish completion for tether: tether completion fish > ~/.config/fish/completions/tether.fish\n" + s, err
	},
	"powershell": func(*cli.App) (string, error) { return powershellCompletion, nil },
}

func completionShells() string {
	var names []string
	for n := range completionScripts {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:            "completion",
		Usage:           "print the shell completion script for SHELL: " + completionShells(),
		ArgsUsage:       "SHELL",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("tether completion: want one shell (%s), got %d arguments", completionShells(), c.NArg())
			}
			gen, ok := completionScripts[c.Args().First()]
			if !ok {
				return usagef("tether completion: unknown shell %q (want %s)", c.Args().First(), completionShells())
			}
			s, err := gen(c.App)
			if err != nil {
				return cli.Exit("tether completion: "+err.Error(), exitUsage)
			}
			_, err = io.WriteString(c.App.Writer, s)
			if err != nil {
				return cli.Exit(fmt.Sprintf("tether completion: write: %v", err), exitUsage)
			}
			return nil
		},
	}
}

const bashCompletion = `# bash completion for tether
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
	[[ $cur == -* ]] && words+=("$cur")
	COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "${words[@]}" --generate-bash-completion 2>/dev/null)" -- "$cur"))
}
complete -o default -F _tether tether
`

const zshCompletion = `#compdef tether
# zsh completion for tether
# Install: tether completion zsh > "${fpath[1]}/_tether"
#      or: source <(tether completion zsh)   (in ~/.zshrc, after compinit)
_tether() {
	local -a opts words_before
	local cur=${words[CURRENT]}
	if (( ${words[(I)--]} > 1 && ${words[(I)--]} < CURRENT )); then
		# The command's own words: never ask tether, which would run it.
		_files
		return
	fi
	words_before=(${words[2,CURRENT-1]})
	[[ $cur == -* ]] && words_before+=($cur)
	opts=(${(f)"$(${words[1]} ${words_before[@]} --generate-bash-completion 2>/dev/null)"})
	if (( ${#opts} )); then
		compadd -a opts
	else
		_files
	fi
}
compdef _tether tether
`

const powershellCompletion = `# PowerShell completion for tether
# Install: tether completion powershell | Out-String | Invoke-Expression   (in $PROFILE)
Register-ArgumentCompleter -Native -CommandName tether -ScriptBlock {
	param($wordToComplete, $commandAst, $cursorPosition)
	$line = $commandAst.ToString()
	if ($line.Length -gt $cursorPosition) { $line = $line.Substring(0, $cursorPosition) }
	$words = @($line -split '\s+' | Where-Object { $_ -ne '' } | Select-Object -Skip 1)
	# The command's own words: never ask tether, which would run it.
	if ($words -contains '--') { return }
	if ($wordToComplete -ne '' -and $words.Count -gt 0) {
		if (-not $wordToComplete.StartsWith('-')) { $words = @($words | Select-Object -SkipLast 1) }
	}
	& tether @words --generate-bash-completion 2>$null | ForEach-Object {
		if ($_ -like "$wordToComplete*") {
			[System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
		}
	}
}
`
