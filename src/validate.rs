//! The one validation of a compiled host: everything `plan` and `apply`
//! refuse, run by `check` and `render` through the very functions those
//! commands run, so a host that `check` accepts installs and applies
//! (tests/integration/validate.rs proves it on edited, generated and
//! example inventories).
//!
//! Entry point: [`host`]. A host without a `freebsd` section is plain data:
//! nothing installs or applies it, so nothing more is asked of it.

use crate::compile::Compiled;
use crate::diag::Diags;
use crate::{apply, desired, install};

/// Checks that the host's install plan and apply script can be made: what an
/// unattended install needs ([`install::requirements`]), the desired state
/// ([`desired::build`]), then the plan's layout and the apply script from it.
/// Every error is returned, at the YAML it concerns.
pub(crate) fn host(fqdn: &str, c: &Compiled) -> Result<(), Diags> {
    if !desired::managed(c) {
        return Ok(());
    }
    let mut errors = install::requirements(c);
    let desired = match desired::build(fqdn, c) {
        Ok(h) => h,
        Err(e) => {
            errors.extend(e);
            return Err(errors);
        }
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    apply::steps(&desired)
        .and_then(|steps| apply::script::script(fqdn, &steps, Default::default()))
        .map_err(|e| vec![apply::quote_error(fqdn, e)])?;
    if desired.install.by_beryl() && c.parent.is_none() {
        install::layout(desired);
    }
    Ok(())
}
