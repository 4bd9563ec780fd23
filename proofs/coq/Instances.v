(** * The exact induction instances the z3 proof modules take as hypotheses.

    A z3 module of [proofs/] cannot prove an induction principle: where one
    of its obligations needs one, it states the instance it uses as a
    hypothesis of that obligation.  Each theorem below is that instance,
    stated over the same objects as the z3 text (an arbitrary type for z3's
    uninterpreted sort, [Z] for z3's integers, a function for a z3 array,
    [bool] for a z3 Boolean array), so the hypothesis is no longer a review
    item of the z3 route.
    - [least_unfired_instance]: obligation (4) of [proofs/termination.py]
      (spec section 3.7, GRAPH-ACYCLIC);
    - [walk_rank_induction_instance]: the (<=) obligation of
      [proofs/acyclicity.py] (GRAPH-ACYCLIC);
    - [flatten_downward_induction_instance]: the downward induction that
      combines the base and step obligations of [proofs/rewrite_flatten.py]. *)

From Coq Require Import ZArith Lia.
Open Scope Z_scope.

(** ** Induction on an integer range *)

(** Upward induction on [0..L]: a property of 0 that passes from [i] to
    [i + 1] below [L] holds on the whole range. *)
Lemma range_induction : forall (P : Z -> Prop) (L : Z),
  P 0 ->
  (forall i, 0 <= i < L -> P i -> P (i + 1)) ->
  forall i, 0 <= i <= L -> P i.
Proof.
  intros P L H0 Hstep i [Hi HiL].
  revert HiL.
  pattern i; apply natlike_ind; [intros; exact H0 | | exact Hi].
  intros x Hx IH Hsx.
  unfold Z.succ in *.
  apply Hstep; [lia | apply IH; lia].
Qed.

(** Downward induction on [0..r]: a property of [r] that passes from
    [k + 1] to [k] above 0 holds on the whole range. *)
Lemma downward_range_induction : forall (Q : Z -> Prop) (r : Z),
  Q r ->
  (forall k, 0 <= k < r -> Q (k + 1) -> Q k) ->
  forall k, 0 <= k <= r -> Q k.
Proof.
  intros Q r Hr Hstep k Hk.
  replace k with (r - (r - k)) by lia.
  apply (range_induction (fun n => Q (r - n)) r); [ | | lia].
  - replace (r - 0) with r by lia; exact Hr.
  - intros n Hn HQ.
    apply Hstep; [lia | ].
    replace (r - (n + 1) + 1) with (r - n) by lia; exact HQ.
Qed.

(** ** The least-number instance of obligation (4) of the termination theorem

    The z3 text ([least_unfired_axiom] in [proofs/termination.py]) reads,
    for [rank : Op -> Int] and the state's fired array [fired : Op -> Bool]:
    if no unfired operation has a rank at most that of every unfired
    operation, then every operation is fired.  It holds when every rank is
    at least 0, the first conjunct of the strict rank ([strict_rank]), which
    is a hypothesis of obligation (4) too: this theorem's hypothesis.  This is
    the least-number principle of N for "n is the rank of an unfired
    operation", in the contrapositive form that holds for any type [Op]
    (finite or not) without classical logic. *)
Theorem least_unfired_instance : forall (Op : Type) (rank : Op -> Z) (fired : Op -> bool),
  (forall o, 0 <= rank o) ->
  ~ (exists x, fired x = false /\ (forall y, fired y = false -> rank x <= rank y)) ->
  forall x, fired x = true.
Proof.
  intros Op rank fired Hpos Hnone.
  assert (Hall : forall n, 0 <= n -> forall x, rank x <= n -> fired x = false -> False).
  { intros n Hn.
    pattern n; apply natlike_ind; [ | | exact Hn].
    - intros x Hx Hf.
      apply Hnone; exists x; split; [exact Hf | ].
      intros y _; specialize (Hpos y); lia.
    - intros m Hm IH x Hx Hf.
      apply Hnone; exists x; split; [exact Hf | ].
      intros y Hy.
      destruct (Z_le_gt_dec (rank x) (rank y)) as [Hle | Hgt]; [exact Hle | ].
      exfalso; apply (IH y); [unfold Z.succ in Hx; lia | exact Hy]. }
  intros x.
  destruct (fired x) eqn:Hf; [reflexivity | ].
  exfalso; apply (Hall (rank x) (Hpos x) x); [lia | exact Hf].
Qed.

(** ** The walk induction instance of the (<=) direction of theorem (d)

    The z3 text ([general_if] in [proofs/acyclicity.py]) reads, for a vertex
    sort [V], a rank [r : V -> Int], a walk [walk : Int -> V] (a z3 array)
    and a length [L : Int], with [P i := r (walk i) >= r (walk 0) + i]:
    [P 0] and [P i -> P (i + 1)] for [0 <= i < L] give [P i] for every
    [0 <= i <= L]. *)
Theorem walk_rank_induction_instance :
  forall (V : Type) (r : V -> Z) (walk : Z -> V) (L : Z),
  let P := fun i => r (walk i) >= r (walk 0) + i in
  P 0 ->
  (forall i, 0 <= i < L -> P i -> P (i + 1)) ->
  forall i, 0 <= i <= L -> P i.
Proof.
  intros V r walk L P.
  apply range_induction.
Qed.

(** ** The downward induction of the Flatten rewrite theorem

    [proofs/rewrite_flatten.py] checks, for the integer functions [P] and
    [S] (prefix and suffix products of the shape) and the rank [r], with
    [Q k := P k * S k = P r]: the base [Q r] and the step [Q (k + 1) -> Q k]
    for [0 <= k < r].  The induction that combines them into [Q k] for every
    [0 <= k <= r] (in particular [Q 0], which the seed's special case uses)
    is this instance. The z3 module builds this theorem's two hypotheses as
    z3 terms ([flatten_downward_induction] in [proofs/_instances.py]) and
    cites it only while its base and step obligations conclude exactly
    those terms from the definitions of [P] and [S]. *)
Theorem flatten_downward_induction_instance :
  forall (P S : Z -> Z) (r : Z),
  let Q := fun k => P k * S k = P r in
  Q r ->
  (forall k, 0 <= k < r -> Q (k + 1) -> Q k) ->
  forall k, 0 <= k <= r -> Q k.
Proof.
  intros P S r Q.
  apply downward_range_induction.
Qed.
