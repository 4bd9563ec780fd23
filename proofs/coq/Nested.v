(** * Nested graphs: If and Loop whose bodies are graphs (spec/graph.rst,
    sections 1.4 and 3.6).

    A control-flow operation's meaning is given by runs of its bodies, run
    by the same semantics as the enclosing graph ([Semantics.v]). The tensors
    of the enclosing scope a body reads (its captures) are implicit inputs
    of the operation ([op_implicit]): the body's capture [t] takes the value
    the operation received for the implicit input named [t].

    Two semantics are defined over one syntax ([ngraph], [kind]):
    - [run_ng]/[kind_fn]: functional, with fuel; every graph, at every
      depth, is run by [erun_fuel] of [Errors.v] (the [FileOrder] runner,
      where an operation without a result ends the run without one), its
      control-flow operations interpreted by the nested runs, every Loop
      running at most [fuel] iterations ([None] when one needs more);
    - [nres]/[kres]/[lres]: relational; every graph, at every depth, may end
      any maximal run without failure, with any schedule, each firing of a
      control-flow operation taking the result of some nested run, and each
      nested invocation (each If, each Loop iteration) choosing its own
      schedule. A Loop has a result only after finitely many iterations
      ([lres] is inductive): a Loop without [M] whose condition never
      becomes false has none (divergence is no result,
      [nested_diverging_loop_has_no_result]).

    Under GRAPH-C1 with GRAPH-C1-SOURCES (the seed's C1, at-most-one half) at every depth
    ([all_c1]), a nested run has at most one result
    ([nres_kres_lres_unique], by induction on the nesting and the
    iterations), and every result is the fuelled runner's for every fuel
    from some bound on ([nested_fuel_complete]); hence a nested run is a
    function of its explicit inputs and captures ([nested_run_function])
    and any two maximal runs of a graph with nested graphs end in the same
    state ([nested_order_independence]). Every result of the fuelled
    runner, whatever the fuel, is a relational one ([nested_runs_exist]),
    so the relational semantics has a run wherever the Loops end.

    Modelling choices (differences from [src/sonnx/model/semantics.py]):
    - If: the condition is the first explicit input; [truth] reads a value
      as a boolean; a missing condition gives no results (the Python
      raises).
    - Loop: explicit inputs [M; cond; v1..vn], body inputs
      [iteration; cond; v1..vn], body outputs [cond'; v1'..vn'; s1..sk].
      An iteration starts while the condition holds and, when [M] is
      given, fewer than [trips M] have run; with [M] omitted only the
      condition ends the loop (ONNX's "while cond"). The Loop's results are
      the final carried values, then each scan output [sj] over the
      iterations that ran, in order, combined by [stack] (ONNX stacks them
      along a new first axis); [k] is the body's number of outputs less
      [n + 1], so a Loop that runs no iteration still gives [k] scan
      results ([stack []]). Scan is a Loop over slices and is left as an
      instance of it.
    - An operation whose results are not one per output fails, as in
      [Errors.v] (the Python's count check); an undefined body output
      yields the value [undef] (the Python raises).
    - The body sees only the values of the operation's implicit inputs
      (the Python passes the live enclosing mapping; the two agree on every
      name the body captures, which is an implicit input). *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence Errors.
Import ListNotations.

Section Nested.

Context {V : Type}.

(** The primitive (non-control-flow) operators, as in [Semantics.v]. *)
Variable prim : nat -> list (option V) -> list (option V) -> list V.
(** A value read as a condition; an omitted Loop condition is [None]. *)
Variable truth : option V -> bool.
(** The iteration number given to a Loop body. *)
Variable of_nat : nat -> V.
(** A Loop's trip count from its given [M]. *)
Variable trips : V -> nat.
(** The value of an undefined body output. *)
Variable undef : V.
(** A Loop scan output: the values of one body output over the iterations. *)
Variable stack : list V -> V.

(** A partial interpretation of a graph's operations: [None] when the
    operation has no result (a body whose run has none). *)
Local Notation pinterp := (nat -> list (option V) -> list (option V) -> option (list V)).

(** ** Syntax: graphs whose operations may hold graphs (spec 1.4) *)

(** A graph with nesting: the flat graph, its initializer values, and the
    kind of each operation (by position). *)
Inductive kind : Type :=
  | Prim : nat -> kind
  | IfK : ngraph -> ngraph -> kind
  | LoopK : ngraph -> kind
with ngraph : Type :=
  | NG : graph -> (nat -> option V) -> (nat -> kind) -> ngraph.

Scheme kind_mut := Induction for kind Sort Prop
  with ngraph_mut := Induction for ngraph Sort Prop.
Combined Scheme kind_ngraph_mut from kind_mut, ngraph_mut.

(** The names of operation [i]'s implicit inputs. *)
Definition imp_names (g : graph) (i : nat) : list nat :=
  match nth_error (g_ops g) i with Some o => op_implicit o | None => [] end.

(** The value bound to [t] by the first of [ns] naming it. *)
Fixpoint bind (ns : list nat) (vs : list (option V)) (t : nat) : option V :=
  match ns, vs with
  | n :: ns', v :: vs' => if Nat.eqb t n then v else bind ns' vs' t
  | _, _ => None
  end.

Definition fill (outs : list (option V)) : list V :=
  map (fun x => match x with Some v => v | None => undef end) outs.

(** ** Loops *)

(** A Loop's iteration limit: its trip count when [M] is given, none when
    [M] is omitted (the loop then runs while its condition holds). *)
Definition limit (m : option V) : option nat :=
  match m with Some v => Some (trips v) | None => None end.

(** Whether iteration [k] may start under the limit [lim]. *)
Definition below (lim : option nat) (k : nat) : bool :=
  match lim with Some n => k <? n | None => true end.

(** The iterations of a Loop from iteration [k], with condition [c] and
    carried values [vs], [run] giving a body run's outputs (or [None]).
    At most [fuel] iterations run: a Loop that would start one more gives
    [None], as does a body run without outputs. Otherwise: the final carried
    values, and the scan values of each iteration that ran, in order (a
    body's outputs after the condition are its carried values, as many as
    [vs], then its scan values). *)
Fixpoint loop_fuel (run : list (option V) -> option (list (option V))) (lim : option nat)
    (fuel k : nat) (c : option V) (vs : list (option V))
    : option (list (option V) * list (list (option V))) :=
  if below lim k && truth c then
    match fuel with
    | 0 => None
    | S f =>
        match run (Some (of_nat k) :: c :: vs) with
        | None => None
        | Some [] => Some (vs, [])
        | Some (c' :: rest) =>
            match loop_fuel run lim f (S k) c' (firstn (length vs) rest) with
            | Some (fin, scans) => Some (fin, skipn (length vs) rest :: scans)
            | None => None
            end
        end
    end
  else Some (vs, []).

Lemma loop_fuel_eq : forall run lim fuel k c vs,
  loop_fuel run lim fuel k c vs =
  if below lim k && truth c then
    match fuel with
    | 0 => None
    | S f =>
        match run (Some (of_nat k) :: c :: vs) with
        | None => None
        | Some [] => Some (vs, [])
        | Some (c' :: rest) =>
            match loop_fuel run lim f (S k) c' (firstn (length vs) rest) with
            | Some (fin, scans) => Some (fin, skipn (length vs) rest :: scans)
            | None => None
            end
        end
    end
  else Some (vs, []).
Proof. intros run lim fuel k c vs. destruct fuel; reflexivity. Qed.

(** A body's number of outputs. *)
Definition n_outputs (ng : ngraph) : nat := match ng with NG g _ _ => length (g_outputs g) end.

(** A Loop's results from [loop_fuel]'s: the final carried values, then
    [nscan] scan outputs, output [j] the [stack] of the [j]-th scan value of
    each iteration (undefined ones as [undef]). *)
Definition loop_results (nscan : nat) (r : list (option V) * list (list (option V))) : list V :=
  fill (fst r) ++ map (fun j => stack (map (fun it => match nth j it None with Some v => v | None => undef end)
                                            (snd r)))
                      (seq 0 nscan).

(** The number of scan outputs of a Loop with body [body] and carried values [vs]. *)
Definition n_scans (body : ngraph) (vs : list (option V)) : nat := n_outputs body - S (length vs).

(** ** Functional semantics: [FileOrder] at every depth, with fuel *)

(** Every graph, at every depth, is run by [erun_fuel] of [Errors.v] (the
    [FileOrder] runner, where an operation without a result ends the run);
    every Loop runs at most [fuel] iterations. [None]: some Loop needed
    more, or an operation gave a number of results other than its outputs
    (the [checked] of [Errors.v]). *)
Fixpoint kind_fn (fuel : nat) (k : kind) (ns : list nat) (a b : list (option V)) {struct k}
    : option (list V) :=
  match k with
  | Prim p => Some (prim p a b)
  | IfK b1 b2 =>
      match a with
      | Some c :: _ => option_map fill (run_ng fuel (if truth (Some c) then b1 else b2) [] (bind ns b))
      | _ => Some []
      end
  | LoopK body =>
      match a with
      | m :: c :: vs =>
          option_map (loop_results (n_scans body vs))
            (loop_fuel (fun xs => run_ng fuel body xs (bind ns b)) (limit m) fuel 0 c vs)
      | _ => Some []
      end
  end
with run_ng (fuel : nat) (ng : ngraph) (inp : list (option V)) (outer : nat -> option V) {struct ng}
    : option (list (option V)) :=
  match ng with
  | NG g init kinds =>
      outcome g (erun_fuel (fun i a b => kind_fn fuel (kinds i) (imp_names g i) a b) g
                   (length (g_ops g)) (initial_state g (bind (g_inputs g) inp) init outer))
  end.

(** The interpretation of a graph's operations under [kind_fn]. *)
Definition ng_interp (fuel : nat) (g : graph) (kinds : nat -> kind) : pinterp :=
  fun i a b => kind_fn fuel (kinds i) (imp_names g i) a b.

(** ** Relational semantics: any maximal run at every depth *)

(** [nres ng inp outer outs]: some maximal run of [ng]'s graph, from its
    inputs [inp] and outer values [outer], ends with outputs [outs] and no
    failed firing, where each control-flow operation that fired got the
    results of some nested run ([kres]). [lres body outer lim k c vs r]: the
    iterations of a Loop from iteration [k] end, after finitely many, with
    [r]; there is no [lres] for a Loop whose condition stays true without a
    limit (divergence: no result). *)
Inductive nres : ngraph -> list (option V) -> (nat -> option V) -> list (option V) -> Prop :=
  | nres_run : forall g init kinds inp outer (it : pinterp) s,
      (forall i a b r, it i a b = Some r -> kres (kinds i) (imp_names g i) a b r) ->
      erun it g (initial_state g (bind (g_inputs g) inp) init outer) (Running s) ->
      nres (NG g init kinds) inp outer (outputs_of g s)
with kres : kind -> list nat -> list (option V) -> list (option V) -> list V -> Prop :=
  | kres_prim : forall p ns a b, kres (Prim p) ns a b (prim p a b)
  | kres_if : forall b1 b2 ns c rest b outs,
      nres (if truth (Some c) then b1 else b2) [] (bind ns b) outs ->
      kres (IfK b1 b2) ns (Some c :: rest) b (fill outs)
  | kres_if_nocond : forall b1 b2 ns a b,
      (forall c rest, a <> Some c :: rest) -> kres (IfK b1 b2) ns a b []
  | kres_loop : forall body ns m c vs b r,
      lres body (bind ns b) (limit m) 0 c vs r ->
      kres (LoopK body) ns (m :: c :: vs) b (loop_results (n_scans body vs) r)
  | kres_loop_short : forall body ns a b,
      length a < 2 -> kres (LoopK body) ns a b []
with lres : ngraph -> (nat -> option V) -> option nat -> nat -> option V -> list (option V)
            -> list (option V) * list (list (option V)) -> Prop :=
  | lres_stop : forall body outer lim k c vs,
      below lim k && truth c = false -> lres body outer lim k c vs (vs, [])
  | lres_empty : forall body outer lim k c vs,
      below lim k && truth c = true -> nres body (Some (of_nat k) :: c :: vs) outer [] ->
      lres body outer lim k c vs (vs, [])
  | lres_step : forall body outer lim k c vs c' rest fin scans,
      below lim k && truth c = true -> nres body (Some (of_nat k) :: c :: vs) outer (c' :: rest) ->
      lres body outer lim (S k) c' (firstn (length vs) rest) (fin, scans) ->
      lres body outer lim k c vs (fin, skipn (length vs) rest :: scans).

Scheme nres_mut := Induction for nres Sort Prop
  with kres_mut := Induction for kres Sort Prop
  with lres_mut := Induction for lres Sort Prop.
Combined Scheme nres_kres_lres_mut from nres_mut, kres_mut, lres_mut.

(** ** GRAPH-C1 at every depth *)

Fixpoint all_c1 (ng : ngraph) : Prop :=
  match ng with NG g _ kinds => c1_assign g /\ forall i, kind_c1 (kinds i) end
with kind_c1 (k : kind) : Prop :=
  match k with
  | Prim _ => True
  | IfK b1 b2 => all_c1 b1 /\ all_c1 b2
  | LoopK body => all_c1 body
  end.

(** ** Runs under interpretations that agree where they give results *)

(** A run without failure under [p] is one under any [p'] that gives
    every result [p] gives. *)
Lemma erun_agree : forall (p p' : pinterp) g s e, erun p g s e ->
  forall s', e = Running s' -> (forall i a b r, p i a b = Some r -> p' i a b = Some r) ->
  erun p' g s (Running s').
Proof.
  intros p p' g s e H. induction H as [s Hm | s i Hi Hf | s i t e Hi Ht Hrest IH];
    intros s' He Hp; try discriminate.
  - injection He as <-. apply erun_end. exact Hm.
  - apply (erun_fire p' g s i t); auto. unfold efire in *.
    destruct (nth_error (g_ops g) i) as [o |]; [| exact Ht].
    unfold eresults, checked in *.
    destruct (p i (args s o) (imps s o)) as [rs |] eqn:R; [| discriminate].
    rewrite (Hp _ _ _ _ R). exact Ht.
Qed.

(** Two runs without failure, under interpretations that agree wherever
    both give results, end in the same state (GRAPH-C1's half). *)
Lemma runs_agree : forall (p1 p2 : pinterp) g inp init outer s1 s2,
  c1_assign g ->
  (forall i a b r1 r2, p1 i a b = Some r1 -> p2 i a b = Some r2 -> r1 = r2) ->
  erun p1 g (initial_state g inp init outer) (Running s1) ->
  erun p2 g (initial_state g inp init outer) (Running s2) ->
  st_eq s1 s2.
Proof.
  intros p1 p2 g inp init outer s1 s2 Hc1 Hp R1 R2.
  set (p := fun i a b => match p1 i a b with Some r => Some r | None => p2 i a b end).
  assert (E1 : erun p g (initial_state g inp init outer) (Running s1)).
  { apply (erun_agree p1 p g _ _ R1 s1 eq_refl). intros i a b r E. unfold p. rewrite E. reflexivity. }
  assert (E2 : erun p g (initial_state g inp init outer) (Running s2)).
  { apply (erun_agree p2 p g _ _ R2 s2 eq_refl). intros i a b r E. unfold p.
    destruct (p1 i a b) as [r1 |] eqn:E'; [| exact E]. rewrite (Hp _ _ _ _ _ E' E). reflexivity. }
  exact (error_order_independence p g inp init outer _ _ Hc1 E1 E2).
Qed.

Lemma st_eq_outputs : forall g (s1 s2 : @state V), st_eq s1 s2 -> outputs_of g s1 = outputs_of g s2.
Proof. intros g s1 s2 [Hv _]. unfold outputs_of. apply map_ext. exact Hv. Qed.

(** ** Under GRAPH-C1 at every depth, a nested run has at most one result *)

(** By mutual induction on the derivation, i.e. on the nesting depth and
    the iterations: at each level the control-flow results are, by the
    induction hypothesis, unique, so [runs_agree] applies at that level. *)
Lemma nres_kres_lres_unique :
  (forall ng inp outer o, nres ng inp outer o -> all_c1 ng ->
     forall o', nres ng inp outer o' -> o = o') /\
  (forall k ns a b r, kres k ns a b r -> kind_c1 k -> forall r', kres k ns a b r' -> r = r') /\
  (forall body outer lim k c vs r, lres body outer lim k c vs r -> all_c1 body ->
     forall r', lres body outer lim k c vs r' -> r = r').
Proof.
  apply (nres_kres_lres_mut
    (fun ng inp outer o _ => all_c1 ng -> forall o', nres ng inp outer o' -> o = o')
    (fun k ns a b r _ => kind_c1 k -> forall r', kres k ns a b r' -> r = r')
    (fun body outer lim k c vs r _ => all_c1 body -> forall r', lres body outer lim k c vs r' -> r = r')).
  - intros g init kinds inp outer it s Hk IHk Hrun [Hc1 Hkc] o' H'.
    inversion H' as [g' init' kinds' inp' outer' it' s' Hk' Hrun']; subst.
    apply st_eq_outputs. apply (runs_agree it it' g (bind (g_inputs g) inp) init outer s s' Hc1); auto.
    intros i a b r1 r2 E1 E2. exact (IHk i a b r1 E1 (Hkc i) r2 (Hk' i a b r2 E2)).
  - intros p ns a b _ r' H'. inversion H'; reflexivity.
  - intros b1 b2 ns c rest b outs Hn IH [H1 H2] r' H'. inversion H'; subst.
    + f_equal. apply IH; [destruct (truth (Some c)); assumption | assumption].
    + exfalso. match goal with H : forall c r, _ <> _ |- _ => exact (H c rest eq_refl) end.
  - intros b1 b2 ns a b Ha _ r' H'. inversion H'; subst; [| reflexivity].
    exfalso. exact (Ha _ _ eq_refl).
  - intros body ns m c vs b r Hl IH Hc r' H'. inversion H'; subst.
    + f_equal. apply IH; assumption.
    + simpl in *. lia.
  - intros body ns a b Hlen _ r' H'. inversion H'; subst; [simpl in Hlen; lia | reflexivity].
  - intros body outer lim k c vs Hb _ r' H'. inversion H'; subst; congruence.
  - intros body outer lim k c vs Hb Hn IHn Hc r' H'. inversion H'; subst; [congruence | reflexivity |].
    match goal with H : nres _ _ _ (_ :: _) |- _ => apply (IHn Hc) in H; discriminate end.
  - intros body outer lim k c vs c' rest fin scans Hb Hn IHn Hl IHl Hc r' H'.
    inversion H'; subst; [congruence | |].
    + match goal with H : nres _ _ _ [] |- _ => apply (IHn Hc) in H; discriminate end.
    + match goal with H : nres _ _ _ (_ :: _) |- _ => apply (IHn Hc) in H; injection H as <- <- end.
      match goal with H : lres _ _ _ _ _ _ (_, _) |- _ => apply (IHl Hc) in H; injection H as <- <- end.
      reflexivity.
Qed.

(** ** The fuelled runner's results are runs *)

Lemma loop_fuel_sound : forall body outer lim (run : list (option V) -> option (list (option V))),
  (forall xs o, run xs = Some o -> nres body xs outer o) ->
  forall fuel k c vs r, loop_fuel run lim fuel k c vs = Some r -> lres body outer lim k c vs r.
Proof.
  intros body outer lim run Hrun fuel. induction fuel as [| f IH]; intros k c vs r H;
    rewrite loop_fuel_eq in H; destruct (below lim k && truth c) eqn:B;
    try (injection H as <-; apply lres_stop; exact B); try discriminate.
  destruct (run (Some (of_nat k) :: c :: vs)) as [[| c' rest] |] eqn:R; try discriminate.
  - injection H as <-. apply lres_empty; auto.
  - destruct (loop_fuel run lim f (S k) c' (firstn (length vs) rest)) as [[fin scans] |] eqn:L;
      [| discriminate].
    injection H as <-. apply (lres_step body outer lim k c vs c' rest fin scans B); auto.
Qed.

Lemma fuel_sound : forall fuel,
  (forall k ns a b r, kind_fn fuel k ns a b = Some r -> kres k ns a b r) /\
  (forall ng inp outer o, run_ng fuel ng inp outer = Some o -> nres ng inp outer o).
Proof.
  intros fuel. apply (kind_ngraph_mut
    (fun k => forall ns a b r, kind_fn fuel k ns a b = Some r -> kres k ns a b r)
    (fun ng => forall inp outer o, run_ng fuel ng inp outer = Some o -> nres ng inp outer o)).
  - intros p ns a b r H. simpl in H. injection H as <-. apply kres_prim.
  - intros b1 IH1 b2 IH2 ns a b r H. simpl in H. destruct a as [| [c |] rest].
    + injection H as <-. apply kres_if_nocond. intros c rest E. discriminate.
    + destruct (run_ng fuel (if truth (Some c) then b1 else b2) [] (bind ns b)) as [outs |] eqn:E;
        simpl in H; [| discriminate].
      injection H as <-. apply kres_if. revert E. destruct (truth (Some c)); intros E;
        [apply IH1 | apply IH2]; exact E.
    + injection H as <-. apply kres_if_nocond. intros c' rest' E. discriminate.
  - intros body IH ns a b r H. simpl in H. destruct a as [| m [| c vs]].
    + injection H as <-. apply kres_loop_short. simpl. lia.
    + injection H as <-. apply kres_loop_short. simpl. lia.
    + destruct (loop_fuel (fun xs => run_ng fuel body xs (bind ns b)) (limit m) fuel 0 c vs) as [l |] eqn:E;
        simpl in H; [| discriminate].
      injection H as <-. apply kres_loop.
      apply (loop_fuel_sound body (bind ns b) (limit m) (fun xs => run_ng fuel body xs (bind ns b))) with fuel;
        auto.
  - intros g init kinds IH inp outer o H. simpl in H.
    set (s0 := initial_state g (bind (g_inputs g) inp) init outer) in H.
    destruct (erun_fuel (ng_interp fuel g kinds) g (length (g_ops g)) s0) as [s | j] eqn:E;
      [| unfold ng_interp in E; rewrite E in H; discriminate].
    unfold ng_interp in E. rewrite E in H. simpl in H. injection H as <-.
    apply (nres_run g init kinds inp outer (ng_interp fuel g kinds) s).
    + intros i a b r Hr. apply IH. exact Hr.
    + rewrite <- E. apply erun_fuel_erun. apply unfired_le.
Qed.

(** ** A run is the fuelled runner's result for every fuel large enough *)

Lemma erun_fuel_agree : forall (it : pinterp) (pf : nat -> pinterp) g n s s',
  erun_fuel it g n s = Running s' ->
  (forall i a b r, it i a b = Some r -> exists N, forall fuel, N <= fuel -> pf fuel i a b = Some r) ->
  exists N, forall fuel, N <= fuel -> erun_fuel (pf fuel) g n s = Running s'.
Proof.
  intros it pf g n. induction n as [| n IH]; intros s s' E H; simpl in E.
  - injection E as <-. exists 0. intros fuel _. reflexivity.
  - destruct (next g s) as [i |] eqn:Nx.
    + destruct (efire it g s i) as [t | j] eqn:F; [| discriminate].
      destruct (IH t s' E H) as [N2 HN2].
      unfold efire in F. destruct (nth_error (g_ops g) i) as [o |] eqn:O.
      * unfold eresults in F. destruct (it i (args s o) (imps s o)) as [rs |] eqn:R;
          [| discriminate].
        destruct (H _ _ _ _ R) as [N1 HN1]. exists (max N1 N2). intros fuel Hle. simpl. rewrite Nx.
        assert (Ef : efire (pf fuel) g s i = Running t).
        { unfold efire, eresults. rewrite O, (HN1 fuel ltac:(lia)). exact F. }
        rewrite Ef. apply HN2. lia.
      * injection F as <-. exists N2. intros fuel Hle. simpl. rewrite Nx.
        unfold efire. rewrite O. apply HN2. exact Hle.
    + injection E as <-. exists 0. intros fuel _. simpl. rewrite Nx. reflexivity.
Qed.

Lemma nres_kres_lres_complete :
  (forall ng inp outer o, nres ng inp outer o -> all_c1 ng ->
     exists N, forall fuel, N <= fuel -> run_ng fuel ng inp outer = Some o) /\
  (forall k ns a b r, kres k ns a b r -> kind_c1 k ->
     exists N, forall fuel, N <= fuel -> kind_fn fuel k ns a b = Some r) /\
  (forall body outer lim k c vs r, lres body outer lim k c vs r -> all_c1 body ->
     exists N, forall fuel lf, N <= fuel -> N <= lf ->
       loop_fuel (fun xs => run_ng fuel body xs outer) lim lf k c vs = Some r).
Proof.
  apply (nres_kres_lres_mut
    (fun ng inp outer o _ => all_c1 ng -> exists N, forall fuel, N <= fuel -> run_ng fuel ng inp outer = Some o)
    (fun k ns a b r _ => kind_c1 k -> exists N, forall fuel, N <= fuel -> kind_fn fuel k ns a b = Some r)
    (fun body outer lim k c vs r _ => all_c1 body -> exists N, forall fuel lf, N <= fuel -> N <= lf ->
       loop_fuel (fun xs => run_ng fuel body xs outer) lim lf k c vs = Some r)).
  - intros g init kinds inp outer it s Hk IHk Hrun [Hc1 Hkc].
    set (s0 := initial_state g (bind (g_inputs g) inp) init outer) in Hrun.
    pose proof (erun_fuel_erun it g (length (g_ops g)) s0 (unfired_le g s0)) as Hf.
    pose proof (error_order_independence it g _ init outer _ _ Hc1 Hrun Hf) as Heq.
    destruct (erun_fuel it g (length (g_ops g)) s0) as [s' | j] eqn:E; simpl in Heq; [| contradiction].
    destruct (erun_fuel_agree it (fun fuel => ng_interp fuel g kinds) g _ _ _ E) as [N HN].
    { intros i a b r R. exact (IHk i a b r R (Hkc i)). }
    exists N. intros fuel Hle. simpl. fold s0. unfold ng_interp in HN. rewrite (HN fuel Hle). simpl.
    f_equal. symmetry. apply st_eq_outputs. exact Heq.
  - intros p ns a b _. exists 0. intros fuel _. reflexivity.
  - intros b1 b2 ns c rest b outs Hn IH [H1 H2].
    destruct IH as [N HN]; [destruct (truth (Some c)); assumption |].
    exists N. intros fuel Hle. simpl. rewrite (HN fuel Hle). reflexivity.
  - intros b1 b2 ns a b Ha _. exists 0. intros fuel _. simpl.
    destruct a as [| [c |] rest]; [reflexivity | exfalso; exact (Ha c rest eq_refl) | reflexivity].
  - intros body ns m c vs b r Hl IH Hc. destruct (IH Hc) as [N HN].
    exists N. intros fuel Hle. simpl. rewrite (HN fuel fuel Hle Hle). reflexivity.
  - intros body ns a b Hlen _. exists 0. intros fuel _. simpl.
    destruct a as [| x [| y a]]; [reflexivity | reflexivity | simpl in Hlen; lia].
  - intros body outer lim k c vs Hb _. exists 0. intros fuel lf _ _.
    rewrite loop_fuel_eq, Hb. reflexivity.
  - intros body outer lim k c vs Hb Hn IHn Hc. destruct (IHn Hc) as [N HN].
    exists (S N). intros fuel lf Hf Hlf. destruct lf as [| lf]; [lia |].
    rewrite loop_fuel_eq, Hb, (HN fuel ltac:(lia)). reflexivity.
  - intros body outer lim k c vs c' rest fin scans Hb Hn IHn Hl IHl Hc.
    destruct (IHn Hc) as [N1 HN1]. destruct (IHl Hc) as [N2 HN2].
    exists (S (max N1 N2)). intros fuel lf Hf Hlf. destruct lf as [| lf]; [lia |].
    rewrite loop_fuel_eq, Hb, (HN1 fuel ltac:(lia)), (HN2 fuel lf ltac:(lia) ltac:(lia)). reflexivity.
Qed.

(** ** The theorems *)

(** Every result of the fuelled runner is a run of the relational
    semantics, whatever the fuel; no premise. So the relational semantics
    has a run wherever every Loop ends within some bound and every
    operation gives one result per output (a Loop whose condition never
    becomes false has none: [nested_diverging_loop_has_no_result]). *)
Theorem nested_runs_exist : forall fuel ng inp outer outs,
  run_ng fuel ng inp outer = Some outs -> nres ng inp outer outs.
Proof. intros fuel. exact (proj2 (fuel_sound fuel)). Qed.

(** Conversely, under GRAPH-C1 with GRAPH-C1-SOURCES (the seed's C1, at-most-one half) at every
    depth, every result of the relational semantics is the fuelled
    runner's, for every fuel from some bound on. *)
Theorem nested_fuel_complete : forall ng inp outer outs,
  all_c1 ng -> nres ng inp outer outs ->
  exists N, forall fuel, N <= fuel -> run_ng fuel ng inp outer = Some outs.
Proof. intros ng inp outer outs Hc H. exact (proj1 nres_kres_lres_complete ng inp outer outs H Hc). Qed.

(** A nested run's outputs are a function of its explicit inputs and its
    captures (the values of the implicit inputs of the operation holding
    it), whatever the schedule inside the body at every depth: two runs
    from the same explicit inputs, with outer values that agree on the
    body's captures, give the same outputs. Premise: GRAPH-C1 with
    GRAPH-C1-SOURCES at every depth. *)
Theorem nested_run_function : forall ng inp outer1 outer2 outs1 outs2,
  all_c1 ng ->
  (forall t, In t (match ng with NG g _ _ => g_captures g end) -> outer1 t = outer2 t) ->
  nres ng inp outer1 outs1 -> nres ng inp outer2 outs2 ->
  outs1 = outs2.
Proof.
  intros ng inp outer1 outer2 outs1 outs2 Hc Hcap H1 H2.
  destruct (nested_fuel_complete _ _ _ _ Hc H1) as [N1 HN1].
  destruct (nested_fuel_complete _ _ _ _ Hc H2) as [N2 HN2].
  pose proof (HN1 (max N1 N2) ltac:(lia)) as E1. pose proof (HN2 (max N1 N2) ltac:(lia)) as E2.
  destruct ng as [g init kinds]. destruct Hc as [Hc1 _]. simpl in E1, E2, Hcap.
  set (p := fun i a b => kind_fn (max N1 N2) (kinds i) (imp_names g i) a b) in E1, E2.
  set (inp' := bind (g_inputs g) inp) in E1, E2.
  assert (D : outcome g (erun_fuel p g (length (g_ops g)) (initial_state g inp' init outer1))
            = outcome g (erun_fuel p g (length (g_ops g)) (initial_state g inp' init outer2))).
  { apply (error_determinism p g inp' inp' init init outer1 outer2); auto;
      apply erun_fuel_erun; apply unfired_le. }
  rewrite E1, E2 in D. injection D as D. exact D.
Qed.

(** Order independence with nested graphs: if every graph at every depth
    satisfies GRAPH-C1 with GRAPH-C1-SOURCES (the seed's C1, at-most-one half), any two maximal runs
    of the main graph that end without failure, each with control-flow
    operations given the results of any nested runs (any schedule at every
    depth, any number of Loop iterations the relational semantics allows),
    end in the same state. *)
Theorem nested_order_independence : forall g init kinds (it1 it2 : pinterp) inp outer s1 s2,
  all_c1 (NG g init kinds) ->
  (forall i a b r, it1 i a b = Some r -> kres (kinds i) (imp_names g i) a b r) ->
  (forall i a b r, it2 i a b = Some r -> kres (kinds i) (imp_names g i) a b r) ->
  erun it1 g (initial_state g inp init outer) (Running s1) ->
  erun it2 g (initial_state g inp init outer) (Running s2) ->
  st_eq s1 s2.
Proof.
  intros g init kinds it1 it2 inp outer s1 s2 [Hc1 Hkc] Hk1 Hk2 R1 R2.
  apply (runs_agree it1 it2 g inp init outer s1 s2 Hc1); auto.
  intros i a b r1 r2 E1 E2.
  exact (proj1 (proj2 nres_kres_lres_unique) _ _ _ _ _ (Hk1 _ _ _ _ E1) (Hkc i) r2 (Hk2 _ _ _ _ E2)).
Qed.

(** ** A Loop that its condition never ends has no result *)

(** The body of a condition-only Loop with no carried value whose body
    passes its incoming condition on unchanged: inputs 0 (iteration) and
    1 (condition), no operation, output 1. *)
Definition spin : ngraph :=
  NG (mkGraph [0; 1] [] [] [] [1]) (fun _ => None) (fun _ => Prim 0).

Lemma spin_outputs : forall x y rest outer outs, nres spin (x :: y :: rest) outer outs -> outs = [y].
Proof.
  intros x y rest outer outs H. inversion H as [g init kinds inp outer' it s Hk Hrun]; subst.
  inversion Hrun as [s' Hm | s' i Hi Hf | s' i t e Hi Ht Hr]; subst.
  - unfold outputs_of. simpl. unfold initial_vals. simpl. destruct y; reflexivity.
  - destruct Hi as [o [Ho _]]. destruct i; discriminate.
Qed.

Lemma spin_lres_empty : forall body outer lim k c vs r, lres body outer lim k c vs r ->
  body = spin -> lim = None -> vs = [] -> truth c = true -> False.
Proof.
  intros body outer lim k c vs r H. induction H as [body outer lim k c vs Hb | body outer lim k c vs Hb Hn
    | body outer lim k c vs c' rest fin scans Hb Hn Hl IH]; intros -> -> -> Hc.
  - simpl in Hb. rewrite Hc in Hb. discriminate.
  - apply spin_outputs in Hn. discriminate.
  - apply spin_outputs in Hn. injection Hn as -> ->. apply IH; auto.
Qed.

(** A Loop without [M] whose condition stays true (its body passes the
    condition on unchanged) has no result in the relational semantics:
    divergence is the absence of a result, never a value. *)
Theorem nested_diverging_loop_has_no_result : forall ns b c r,
  truth (Some c) = true -> ~ kres (LoopK spin) ns [None; Some c] b r.
Proof.
  intros ns b c r Hc H. inversion H as [| | | body ns' m c' vs b' r' Hl | body ns' a b' Hlen]; subst.
  - apply (spin_lres_empty _ _ _ _ _ _ _ Hl); auto.
  - simpl in Hlen. lia.
Qed.

End Nested.
