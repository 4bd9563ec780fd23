(* The nested blocks of the driver (main.ml): graphs whose operations hold graphs, run by run_ng of
   proofs/coq/Nested.v as ExtractNested.v instantiates it (spec/graph.rst sections 1.4 and 3.6).

   main.ml hands over after a line "nested"; the block ends with "run". Lines:
     body ID ... end     a body graph numbered ID, given before the operations that hold it;
                         the lines in between describe it
     inputs ID...    inits ID...    captures ID...    outputs ID...   (of the graph being read)
     op CODE PARAM NOUTS | IN... | IMPLICIT... | OUT...   a table operation (as in flat blocks)
     if THEN ELSE | IN... | IMPLICIT... | OUT...          an If holding the bodies THEN and ELSE
     loop BODY | IN... | IMPLICIT... | OUT...             a Loop holding the body BODY
     inp ID V...    init ID V...    outer ID V...    tensors N   (the main graph's values)
   Bodies have no initializer values. The output is, for the main graph, the state after each
   firing of the file-order run inside run_ng (step, nested_trace), then either the end of a run
   (fired, vals, and outs, run_ng's own outputs) or "outoffuel I": main operation I had no result
   because a Loop, at some depth, needed more than nfuel iterations; then done.
   A block in which an operation could give a number of results other than its outputs is refused
   (table codes 0 to 3 only, NOUTS equal to the outputs, an If with a condition and bodies with as
   many outputs as it has, a Loop with M and a condition entry and a body giving a condition and one
   value per output, no more carried values than outputs), so a failed run is an exhausted fuel.
   Malformed input stops the driver with a message on stderr and exit code 2. *)

open Sonnx_nested

let fail msg = prerr_endline ("runner: " ^ msg); exit 2

let num s =
  match int_of_string_opt s with
  | Some n when n >= 0 && n < 1 lsl 40 -> n
  | _ -> fail ("not a small non-negative number: " ^ s)

let entry s = if s = "-" then None else Some (num s)

let words line = List.filter (fun w -> w <> "") (String.split_on_char ' ' line)

let rec pairs = function
  | [] -> []
  | k :: v :: rest -> (num k, num v) :: pairs rest
  | _ -> fail "a value list needs id/value pairs"

let lookup l t = List.assoc_opt t l

type builder = {
  id : int; mutable inputs : int list; mutable inits : int list; mutable captures : int list;
  mutable outputs : int list; mutable ops : (int kind * operation) list }

let fresh id = { id; inputs = []; inits = []; captures = []; outputs = []; ops = [] }

let to_ngraph b init =
  let ops = List.rev b.ops in
  let kinds = Array.of_list (List.map fst ops) in
  let g = { g_inputs = b.inputs; g_inits = b.inits; g_captures = b.captures;
            g_ops = List.map snd ops; g_outputs = b.outputs } in
  (* operations are looked up by position; none lies beyond the list, Prim 0 only fills the type *)
  NG (g, init, fun i -> if i < Array.length kinds then kinds.(i) else Prim 0)

let show_vals n vals =
  let b = Buffer.create 64 in
  for t = 0 to n - 1 do
    match vals t with
    | Some v -> Buffer.add_string b (Printf.sprintf " %d=%d" t v)
    | None -> ()
  done;
  Buffer.contents b

let run_block () =
  let codes = ref [] and ncodes = ref 0 in
  let bodies = Hashtbl.create 8 in
  let body id = match Hashtbl.find_opt bodies id with
    | Some ng -> ng | None -> fail (Printf.sprintf "body %d is used before it is given" id) in
  let stack = ref [ fresh (-1) ] in
  let inp = ref [] and init = ref [] and outer = ref [] and tensors = ref 0 in
  let top () = List.hd !stack in
  let add_op line kind_of =
    match List.map words (String.split_on_char '|' line) with
    | [ _ :: head; ins; imps; outs ] ->
      let o = { op_inputs = List.map entry ins; op_implicit = List.map num imps;
                op_outputs = List.map entry outs } in
      (top ()).ops <- (kind_of head o, o) :: (top ()).ops
    | _ -> fail ("malformed operation line: " ^ line) in
  let n_outs = function NG (g, _, _) -> List.length g.g_outputs in
  let prim head o =
    match head with
    | [ c; p; n ] ->
      if num c > 3 then fail "a nested block takes table codes 0 to 3 only";
      if num n <> List.length o.op_outputs then fail "NOUTS differs from the number of outputs";
      codes := { code = num c; param = num p; nouts = num n } :: !codes;
      incr ncodes; Prim (!ncodes - 1)
    | _ -> fail "an op line needs CODE PARAM NOUTS" in
  let if_kind head o =
    match head, o.op_inputs with
    | [ t; e ], Some _ :: _ ->
      let bt = body (num t) and be = body (num e) in
      let k = List.length o.op_outputs in
      if n_outs bt <> k || n_outs be <> k then fail "an If's bodies must give one value per output";
      IfK (bt, be)
    | [ _; _ ], _ -> fail "an If needs a condition"
    | _ -> fail "if needs THEN ELSE" in
  let loop_kind head o =
    match head with
    | [ l ] ->
      let bl = body (num l) and k = List.length o.op_outputs and n = List.length o.op_inputs in
      if n < 2 then fail "a Loop needs M and condition entries";
      if n - 2 > k then fail "a Loop has more carried values than outputs";
      if n_outs bl <> k + 1 then fail "a Loop's body must give a condition and one value per output";
      LoopK bl
    | _ -> fail "loop needs BODY" in
  let rec read () =
    let line = try input_line stdin with End_of_file -> fail "a nested block has no run line" in
    match words line with
    | [] -> read ()
    | [ "run" ] -> ()
    | [ "body"; id ] -> stack := fresh (num id) :: !stack; read ()
    | [ "end" ] ->
      (match !stack with
       | b :: (_ :: _ as rest) -> Hashtbl.replace bodies b.id (to_ngraph b (fun _ -> None)); stack := rest
       | _ -> fail "end outside a body");
      read ()
    | "inputs" :: ids -> (top ()).inputs <- List.map num ids; read ()
    | "inits" :: ids -> (top ()).inits <- List.map num ids; read ()
    | "captures" :: ids -> (top ()).captures <- List.map num ids; read ()
    | "outputs" :: ids -> (top ()).outputs <- List.map num ids; read ()
    | "op" :: _ -> add_op line prim; read ()
    | "if" :: _ -> add_op line if_kind; read ()
    | "loop" :: _ -> add_op line loop_kind; read ()
    | "inp" :: vs -> inp := pairs vs; read ()
    | "init" :: vs -> init := pairs vs; read ()
    | "outer" :: vs -> outer := pairs vs; read ()
    | [ "tensors"; n ] -> tensors := num n; read ()
    | w :: _ -> fail ("unknown line in a nested block: " ^ w) in
  read ();
  let main = match !stack with [ b ] -> b | _ -> fail "a body has no end line" in
  let ng = to_ngraph main (lookup !init) in
  let all = List.rev !codes in
  let args = List.map (lookup !inp) main.inputs and out_vals = lookup !outer in
  let g = match ng with NG (g, _, _) -> g in
  let trace, ending = nested_trace all ng args out_vals in
  let s = ref (nested_start ng args out_vals) in
  List.iter (fun (i, t) ->
      if not (executable_b g !s i) then fail "the runner fired a non-executable operation";
      s := t;
      print_string (Printf.sprintf "step %d%s\n" i (show_vals !tensors t.vals))) trace;
  (match ending, nested_outputs all ng args out_vals with
   | Running final, Some outs ->
     let order = List.rev final.fired in
     print_string ("fired" ^ String.concat "" (List.map (Printf.sprintf " %d") order) ^ "\n");
     print_string ("vals" ^ show_vals !tensors final.vals ^ "\n");
     let out = function Some v -> Printf.sprintf " %d" v | None -> " -" in
     print_string ("outs" ^ String.concat "" (List.map out outs) ^ "\n")
   | Failed i, None -> print_string (Printf.sprintf "outoffuel %d\n" i)
   | _ -> fail "the trace and run_ng disagree on whether the run ended");
  print_string "done\n"
