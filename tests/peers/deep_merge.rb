#!/usr/bin/env ruby
# frozen_string_literal: true
#
# Oracle driver: the deep_merge gem (DeepMerge.deep_merge!, deep_merge/core.rb)
# folded exactly the way Puppet's Hiera 5 `deep` strategy folds it
# (Puppet::Pops::MergeStrategy#lookup + DeepMergeStrategy#checked_merge), but
# without Puppet: no option validation, so gem-only options can be tried too.
#
# Protocol: identical to hiera.rb
#   {"id": 7, "strategy": {"strategy": "deep", "knockout_prefix": "--", ...}, "levels": [LOW, ..., HIGH]}
#   -> {"id": 7, "ok": RESULT} | {"id": 7, "error": "ExceptionClass: message"}
# Options = "strategy" hash minus its "strategy" key, keys converted to symbols,
# applied on top of {preserve_unmergeables: false} (same construction as Puppet).
# "strategy" must be "deep" (or a hash whose "strategy" is "deep").

OUT = STDOUT.dup
OUT.sync = true
STDOUT.reopen(STDERR) # merge_debug traces (puts) go to stderr, never to the protocol channel
$stdout = STDOUT
$stdout.sync = true

require 'json'
require 'deep_merge/core'

# Verbatim copy of Puppet::Pops::DeepMergeStrategy#deep_clone (puppet 7.23).
def deep_clone(value)
  if value.is_a?(Hash)
    result = value.clone
    value.each { |k, v| result[k] = deep_clone(v) }
    result
  elsif value.is_a?(Array)
    value.map { |v| deep_clone(v) }
  else
    value
  end
end

def options_for(spec)
  name = spec.is_a?(Hash) ? spec['strategy'] : spec
  raise ArgumentError, "deep_merge driver only supports strategy 'deep', got #{name.inspect}" unless name.to_s == 'deep'
  dm_options = { preserve_unmergeables: false }
  spec.each_pair { |k, v| dm_options[k.to_sym] = v unless k == 'strategy' } if spec.is_a?(Hash)
  dm_options
end

# Mirrors MergeStrategy#lookup with the variants highest priority first:
#   0 variants -> throw :no_such_key
#   1 variant  -> merge_single(value)  (identity for deep: no merge, no knockout processing)
#   n variants -> memo = convert_value(highest) (identity for deep, memo NOT cloned),
#                 then memo = deep_merge!(memo, deep_clone(next_lower), opts) for each lower level.
def run_case(c)
  levels = c['levels']
  raise ArgumentError, "'levels' must be an array" unless levels.is_a?(Array)
  opts = options_for(c['strategy'])
  high_first = levels.reverse
  case high_first.size
  when 0
    raise KeyError, 'no_such_key thrown (not found)'
  when 1
    high_first[0]
  else
    high_first.drop(1).reduce(high_first[0]) do |memo, lower|
      DeepMerge.deep_merge!(memo, deep_clone(lower), opts)
    end
  end
end

def reply(obj)
  OUT.write(JSON.generate(obj) + "\n")
end

STDIN.each_line do |line|
  next if line.strip.empty?
  id = nil
  begin
    c = JSON.parse(line)
    id = c['id'] if c.is_a?(Hash)
    raise ArgumentError, 'case must be a JSON object' unless c.is_a?(Hash)
    reply_line = JSON.generate({ 'id' => id, 'ok' => run_case(c) })
    OUT.write(reply_line + "\n")
  rescue Interrupt, SignalException, SystemExit
    raise
  rescue Exception => e # rubocop:disable Lint/RescueException
    reply({ 'id' => id, 'error' => "#{e.class}: #{e.message}" })
  end
end
