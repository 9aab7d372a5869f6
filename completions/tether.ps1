# PowerShell completion for tether
# Install: tether completion powershell | Out-String | Invoke-Expression   (in $PROFILE)
Register-ArgumentCompleter -Native -CommandName tether -ScriptBlock {
	param($wordToComplete, $commandAst, $cursorPosition)
	$line = $commandAst.ToString()
	if ($line.Length -gt $cursorPosition) { $line = $line.Substring(0, $cursorPosition) }
	$words = @($line -split '\s+' | Where-Object { $_ -ne '' } | Select-Object -Skip 1)
	$before = $words
	if ($wordToComplete -ne '' -and $words.Count -gt 0) { $before = @($words | Select-Object -SkipLast 1) }
	# The command's own words: never ask tether, which would run it.
	if ($before -contains '--') { return }
	if ($wordToComplete -ne '' -and -not $wordToComplete.StartsWith('-')) { $words = $before }
	# "--" would end tether's flags: "-" asks for all of them.
	if ($wordToComplete -eq '--') { $words = @($before) + @('-') }
	& tether @words --generate-bash-completion 2>$null | ForEach-Object {
		if ($_ -like "$wordToComplete*") {
			[System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
		}
	}
}
