#!/usr/bin/env ruby
# frozen_string_literal: true
#
# Oracle driver: `puppet lookup` (Puppet::Application::Lookup) in one process.
#
# Starting `puppet lookup` costs about 3.5 s per call, so this driver starts
# Puppet once, with the same command-line settings the CLI takes, e.g.
#
#   ruby tests/peers/lookup.rb --confdir D --vardir D --codedir CODE --environment production
#
# and then reads one JSON request per stdin line:
#
#   {"id": 1, "node": "alpha.example.com", "facts": {...},
#    "lookups": [{"key": "a.b", "merge": "deep", "knockout_prefix": "--",
#                 "sort_merged_arrays": false, "merge_hash_arrays": false,
#                 "default": "x", "default_values_hash": {...}, "render_as": "json"}, ...]}
#
# Each lookup field is optional and means the CLI option of the same name
# ("default" present, even null, means `--default`; "render_as" defaults to
# yaml as in the CLI). The node's scope is made by the CLI's own
# `generate_scope` (facts from a file, `trusted` resurrected from a `trusted`
# fact, an empty catalog compiled), once per request; each lookup then runs
# Puppet::Pops::Lookup.lookup the way Application::Lookup#main does. One output
# line per input line:
#
#   {"id": 1, "results": [{"exit": 0, "stdout": "--- x\n"}, {"exit": 1, "stdout": ""}, ...]}
#
# where stdout is exactly what the CLI prints and exit its exit status (where
# the CLI exits 1 silently, "lookup_error" adds the LookupError's message:
# "Function lookup() did not find a value for the name 'k'" for not found); a CLI
# error ("Error: Could not run: ...") comes back as {"exit": 1, "stdout": "",
# "stderr": "Error: Could not run: ..."}. A request that fails as a whole gives
# {"id": 1, "error": "Class: message"}. Fd 1 is redirected to stderr so that
# Puppet's warnings never reach the protocol channel.

OUT = STDOUT.dup
OUT.sync = true
STDOUT.reopen(STDERR)
$stdout = STDOUT

require 'json'
require 'stringio'
require 'tempfile'
require 'puppet'
require 'puppet/util/command_line'
require 'puppet/application/lookup'

# The CLI application, with `main` replaced by a loop over stdin requests.
class LookupDriver < Puppet::Application::Lookup
  def main
    STDIN.each_line do |line|
      next if line.strip.empty?
      OUT.write(JSON.generate(serve(line)) + "\n")
    end
  end

  def serve(line)
    id = nil
    req = JSON.parse(line)
    id = req['id']
    results = nil
    with_fact_file(req['facts'] || {}) do |path|
      options[:node] = req.fetch('node')
      options[:fact_file] = path
      generate_scope do |scope|
        results = req.fetch('lookups').map { |l| one_lookup(scope, l) }
      end
    end
    { 'id' => id, 'results' => results }
  rescue Interrupt, SignalException, SystemExit
    raise
  rescue Exception => e # rubocop:disable Lint/RescueException -- never die per request
    { 'id' => id, 'error' => "#{e.class}: #{e.message}" }
  end

  def with_fact_file(facts)
    file = Tempfile.new(['facts', '.json'])
    file.write(JSON.generate(facts))
    file.close
    yield file.path
  ensure
    file&.unlink
  end

  # What `puppet lookup KEY OPTIONS` prints, as {exit, stdout[, stderr]}.
  def one_lookup(scope, l)
    merge = l['merge']
    deep_only = l['knockout_prefix'] || l['sort_merged_arrays'] || l['merge_hash_arrays']
    if deep_only && merge != 'deep'
      return cli_error("The options #{DEEP_MERGE_OPTIONS} are only available with '--merge deep'\n#{RUN_HELP}")
    end
    merge_options = nil
    if merge == 'deep'
      merge_options = { 'strategy' => 'deep',
                        'sort_merged_arrays' => l['sort_merged_arrays'] ? true : false,
                        'merge_hash_arrays' => l['merge_hash_arrays'] ? true : false }
      merge_options['knockout_prefix'] = l['knockout_prefix'] if l['knockout_prefix']
    elsif merge
      merge_options = { 'strategy' => merge }
    end
    renderer = Puppet::Network::FormatHandler.format((l['render_as'] || 'yaml').to_sym)
    invocation = Puppet::Pops::Lookup::Invocation.new(scope, {}, l['default_values_hash'] || {}, nil)
    has_default = l.key?('default')
    begin
      value = Puppet::Pops::Lookup.lookup([l.fetch('key')], nil, l['default'], has_default, merge_options, invocation)
    rescue Puppet::DataBinding::LookupError => e
      # The CLI prints nothing here; the message tells not found from a
      # failed merge or dig.
      return { 'exit' => 1, 'stdout' => '', 'lookup_error' => e.message }
    end
    out = StringIO.new
    out.puts(renderer.render(value))
    { 'exit' => 0, 'stdout' => out.string }
  rescue StandardError => e
    cli_error(e.message)
  end

  def cli_error(message)
    { 'exit' => 1, 'stdout' => '', 'stderr' => "Error: Could not run: #{message}" }
  end
end

command_line = Puppet::Util::CommandLine.new('puppet', ['lookup'] + ARGV)
Puppet.initialize_settings(command_line.args)
LookupDriver.new(command_line).run
