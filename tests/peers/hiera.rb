#!/usr/bin/env ruby
# frozen_string_literal: true
#
# Oracle driver: Puppet's own Hiera 5 merge strategies
# (Puppet::Pops::MergeStrategy, lib/puppet/pops/merge_strategy.rb).
#
# Protocol: one JSON object per stdin line
#   {"id": 7, "strategy": {"strategy": "deep", ...options}, "levels": [LOW, ..., HIGH]}
# and exactly one JSON line per input line on stdout:
#   {"id": 7, "ok": RESULT}  or  {"id": 7, "error": "ExceptionClass: message"}
# "strategy" may also be a bare string ("first", "unique", "hash", "deep") or null (default = first).
# Levels are given lowest priority first; they are handed to Puppet highest
# priority first, which is the order in which Hiera gathers them.

# Keep the protocol channel clean: duplicate the real stdout for our replies,
# then point fd 1 at stderr so that anything else (Puppet start-up messages,
# log output, merge_debug traces from the deep_merge gem) lands on stderr.
OUT = STDOUT.dup
OUT.sync = true
STDOUT.reopen(STDERR)
$stdout = STDOUT
$stdout.sync = true

require 'json'
require 'tmpdir'
require 'fileutils'
require 'puppet'

SCRATCH = Dir.mktmpdir('beryl-hiera-peer-')
at_exit { FileUtils.remove_entry(SCRATCH) if File.directory?(SCRATCH) }
Puppet.initialize_settings(['--confdir', SCRATCH, '--vardir', SCRATCH, '--codedir', SCRATCH])

def reply(obj)
  OUT.write(JSON.generate(obj) + "\n")
end

def run_case(c)
  spec = c['strategy']
  levels = c['levels']
  raise ArgumentError, "'levels' must be an array" unless levels.is_a?(Array)
  strategy = Puppet::Pops::MergeStrategy.strategy(spec)
  invocation = Puppet::Pops::Lookup::Invocation.new(nil)
  found = false
  result = catch(:no_such_key) do
    v = strategy.lookup(levels.reverse, invocation) { |x| x }
    found = true
    v
  end
  raise KeyError, 'no_such_key thrown (not found)' unless found
  result
end

STDIN.each_line do |line|
  next if line.strip.empty?
  id = nil
  begin
    c = JSON.parse(line)
    id = c['id'] if c.is_a?(Hash)
    raise ArgumentError, 'case must be a JSON object' unless c.is_a?(Hash)
    # Serialise before writing so a failure never produces a partial line.
    reply_line = JSON.generate({ 'id' => id, 'ok' => run_case(c) })
    OUT.write(reply_line + "\n")
  rescue Interrupt, SignalException, SystemExit
    raise
  rescue Exception => e # rubocop:disable Lint/RescueException -- never die per case (incl. SystemStackError)
    reply({ 'id' => id, 'error' => "#{e.class}: #{e.message}" })
  end
end
