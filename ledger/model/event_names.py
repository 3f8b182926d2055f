"""The type names of every stored event, one constant each: compare an event's type against these, never a bare string.

This module imports nothing, so any part may use it (the rules read the effect names through ledger/model/sheet.py). The
names are stored event class names: they never change (tests/unit/test_event_names.py checks them against the classes).
"""

# -- Campaign (ledger/aggregates.py) ---------------------------------------------------------------------
CAMPAIGN_CREATED = "CampaignCreated"
CHARACTER_ENROLLED = "CharacterEnrolled"
CHARACTER_RETIRED = "CharacterRetired"  # Campaign.CharacterRetired and Character.CharacterRetired
SESSION_STARTED = "SessionStarted"
SESSION_ENDED = "SessionEnded"
DICE_COMMITTED = "DiceCommitted"
DICE_REVEALED = "DiceRevealed"
DICE_SCHEME = "DiceScheme"
DICE_COUNTED = "DiceCounted"
DICE_ASKED = "DiceAsked"
ASK_CLOSED = "AskClosed"
CAMPAIGN_RESTORED = "CampaignRestored"
RULING_CHAINED = "RulingChained"
RULING_UNDONE = "RulingUndone"
RULING_REDONE = "RulingRedone"
RETRACTION_RECORDED = "RetractionRecorded"

# -- Ruling (ledger/aggregates.py) -----------------------------------------------------------------------
RULING_RECORDED = "RulingRecorded"
DICE_ROLLED = "DiceRolled"
OUTCOME_AMENDED = "OutcomeAmended"
CHECK_RESOLVED = "CheckResolved"
ATTACK_RESOLVED = "AttackResolved"
RESISTANCE_RESOLVED = "ResistanceResolved"
EFFECT_RESOLVED = "EffectResolved"
NOTE_RECORDED = "NoteRecorded"
TOUCHED = "Touched"
RULING_RETRACTED = "RulingRetracted"
RULING_REINSTATED = "RulingReinstated"

# -- Character (ledger/aggregates.py) --------------------------------------------------------------------
CHARACTER_ADDED = "CharacterAdded"
DAMAGE_APPLIED = "DamageApplied"
HEALTH_RECOVERED = "HealthRecovered"
CONDITION_IMPOSED = "ConditionImposed"
CONDITION_REMOVED = "ConditionRemoved"
COUNTERS_CHANGED = "CountersChanged"
RESOURCE_CHANGED = "ResourceChanged"
MINIONS_DEFEATED = "MinionsDefeated"
TRAITS_CHANGED = "TraitsChanged"
STATE_RESTORED = "StateRestored"

# -- Encounter (ledger/encounter.py) ---------------------------------------------------------------------
OPENED = "Opened"
ENCOUNTER_STARTED = "EncounterStarted"
TURN_ADVANCED = "TurnAdvanced"
TURN_DELAYED = "TurnDelayed"
DELAYED_TURN_TAKEN = "DelayedTurnTaken"
PARTICIPANT_JOINED = "ParticipantJoined"
PARTICIPANT_REMOVED = "ParticipantRemoved"
ACTION_TAKEN = "ActionTaken"
ENCOUNTER_ENDED = "EncounterEnded"
ENCOUNTER_RESTORED = "EncounterRestored"

# The ledger's own bookkeeping events: they keep the log's chain and history, and fold into no state.
BOOKKEEPING = frozenset({RULING_CHAINED, RULING_UNDONE, RULING_REDONE, RETRACTION_RECORDED, DICE_COUNTED, TOUCHED})
# The bookkeeping events the read side keeps no row for (chain links, touched lists: half the log).
UNVIEWED = frozenset({RULING_CHAINED, TOUCHED})
CHAIN_TOPIC = "ledger.aggregates:Campaign.RulingChained"  # the stored topic of a chain link
